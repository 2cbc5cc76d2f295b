"""`python -m bench.events`: events through the outbox to a local receiver, and a feed catch-up of 100,000
events compared with a bare SELECT of the same rows.

Runs against the embedded PostgreSQL (or DATABASE_URL) in a database of its own, with Huey in immediate mode:
each event is committed, then delivered (signed, over HTTP to 127.0.0.1) before the next transaction starts.
"""

import argparse
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import webtest
from pyramid.paster import get_appsettings
from sqlalchemy import text

from bench.harness import request_in_transaction
from clinicrecords import make_config
from clinicrecords.access import services
from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic
from clinicrecords.db import embedded, migrations
from clinicrecords.db.tenancy import bind_to_clinic, schema_name
from clinicrecords.events.outbox import emit
from clinicrecords.events.settings import webhook_settings
from clinicrecords.events.webhooks import add_endpoint
from clinicrecords.settings import read, var_dir

ROOT = Path(__file__).resolve().parents[1]


class _Sink(BaseHTTPRequestHandler):
    received = 0

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        _Sink.received += 1
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def _app(database):
    settings = dict(get_appsettings(str(ROOT / "testing.ini"), "main"), **{"database.name": database})
    embedded.drop_database(var_dir(read(settings)), database) if settings["database_url"] == "embedded" else None
    app = make_config(settings).make_wsgi_app()
    migrations.migrate_all(app.registry["db.engine"], CLINIC_SCHEMAS)
    return app


def outbox_to_receiver(registry, count):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with request_in_transaction(registry) as request:
            clinic_id = create_clinic(request.db, "Bench outbox").id
            add_endpoint(request.db, webhook_settings(registry), f"http://127.0.0.1:{server.server_address[1]}/",
                         clinic_id=clinic_id)
        started = time.perf_counter()
        for _ in range(count):
            with request_in_transaction(registry) as request:
                bind_to_clinic(request.db, clinic_id)
                emit(request.db, clinic_id, "inventory.item.updated", uuid.uuid4(), {"id": str(uuid.uuid4())})
        elapsed = time.perf_counter() - started
    finally:
        server.shutdown()
        server.server_close()
    assert _Sink.received == count, (_Sink.received, count)
    return count / elapsed


def feed_catch_up(app, total, page):
    registry = app.registry
    with request_in_transaction(registry) as request:
        clinic_id = create_clinic(request.db, "Bench feed").id
        add_endpoint(request.db, webhook_settings(registry), "http://127.0.0.1:9/", clinic_id=clinic_id,
                     event_types=["listing.freshness.changed"])
        _, key = services.create_key(request.db, registry.settings["secrets.key_pepper"], clinic_id=clinic_id)
        schema = schema_name(clinic_id)
        request.db.execute(text(
            f'INSERT INTO "{schema}".events (id, seq, type, clinic_id, subject_id, data, created_at) '
            "SELECT gen_random_uuid(), n, 'inventory.item.updated', :clinic, gen_random_uuid(), "
            "jsonb_build_object('id', gen_random_uuid()), now() FROM generate_series(1, :total) AS n"),
            {"clinic": clinic_id, "total": total})
        request.db.execute(text(f'INSERT INTO "{schema}".event_counter (id, value) VALUES (1, :total)'),
                           {"total": total})
    with registry["db.engine"].connect() as connection:
        connection.execute(text(f'ANALYZE "{schema}".events'))
    testapp = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    headers = {"Authorization": f"Bearer {key}"}
    started = time.perf_counter()
    after, seen = 0, 0
    while True:
        body = testapp.get(f"/v1/clinics/{clinic_id}/events", params={"after_seq": after, "limit": page},
                           headers=headers).json
        if body["next_after"] == after:
            break
        seen += len(body["events"])
        after = body["next_after"]
    feed_seconds = time.perf_counter() - started
    assert seen == total, (seen, total)
    with registry["db.engine"].connect() as connection:
        started = time.perf_counter()
        rows = connection.execute(text(
            f'SELECT id, seq, type, clinic_id, subject_id, data, created_at FROM "{schema}".events ORDER BY seq'
        )).all()
        bare_seconds = time.perf_counter() - started
    assert len(rows) == total
    return feed_seconds, bare_seconds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.events", description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=500)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--page", type=int, default=200)
    args = parser.parse_args(argv)
    app = _app("clinicrecords_bench")
    try:
        rate = outbox_to_receiver(app.registry, args.deliveries)
        print(f"outbox -> signed HTTP delivery: {args.deliveries} events, {rate:,.0f} events/s "
              "(one transaction each, delivered before the next)")
        feed_seconds, bare_seconds = feed_catch_up(app, args.events, args.page)
        print(f"feed catch-up: {args.events:,} events in pages of {args.page} over HTTP: {feed_seconds:.2f} s "
              f"({args.events / feed_seconds:,.0f} events/s)")
        print(f"bare SELECT of the same rows: {bare_seconds:.2f} s; "
              f"ratio feed/bare = {feed_seconds / bare_seconds:.1f}x")
    finally:
        app.registry["db.engine"].dispose()


if __name__ == "__main__":
    main()
