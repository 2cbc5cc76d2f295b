"""PostgreSQL restarted under load, on an instance of its own (never the suite's database), the application
served by waitress on 127.0.0.1 in this process: six clients keep sending patient creations, allergy
submissions and stock movements while PostgreSQL stops (fast shutdown), stays down 1.5 s and starts again.

Requests in flight and during the outage answer 503 problem+json (never 500, never a dropped connection);
the same application process recovers within seconds (SQLAlchemy invalidates the pool's dead connections on
the first disconnect); and nothing is half-written: every logical write, retried with its Idempotency-Key
until it is answered, exists exactly once, the item's cached quantity equals its ledger, and its
availability events form an unbroken chain that ends at the stored band."""

import http.client
import json
import os
import queue
import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import func, select
from waitress.server import create_server

from clinicrecords import make_config, tasks
from clinicrecords.clinics.services import open_clinic
from clinicrecords.db import embedded, migrations
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.events.models import Event
from clinicrecords.inventory import services as inventory
from clinicrecords.inventory.bands import stock_band
from clinicrecords.inventory.models import InventoryItem, StockMovement
from clinicrecords.patients.models import Patient
from clinicrecords.patients.schemas import PatientCreate
from clinicrecords.review.models import Submission
from tests.common.world import World

THREADS = 6
PER_KIND = 30
DOWN_SECONDS = 1.5
RECOVERY_SECONDS = 5.0


@pytest.fixture
def own_postgres(settings, monkeypatch):
    """An application on a PostgreSQL of its own under a temporary directory, and that server."""
    monkeypatch.delenv("CLINICRECORDS_VAR", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    base = Path(tempfile.mkdtemp(prefix="clinicrecords-restart-"))
    base.chmod(0o755)  # as root, pgserver runs PostgreSQL as its own user, which must reach the data directory
    overrides = {"clinicrecords.var": str(base), "database_url": "embedded", "database.name": "restart_under_load",
                 "database.pool_size": str(2 * THREADS + 4), "huey.backend": "memory", "huey.immediate": "false",
                 "retry.attempts": "1"}
    saved = dict(tasks._state)
    app = make_config(dict(settings, **overrides)).make_wsgi_app()
    server = embedded._servers[base / "pgdata"]
    try:
        migrations.migrate_all(app.registry["db.engine"], workers=1, settings=app.registry.settings)
        yield app, server
    finally:
        app.registry["db.engine"].dispose()
        tasks.configure(settings)
        tasks._state.update(saved)
        embedded._servers.pop(base / "pgdata").cleanup()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def served(own_postgres):
    app, _ = own_postgres
    server = create_server(app, host="127.0.0.1", port=0, threads=THREADS + 2, ident="")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server.effective_port
    server.task_dispatcher.shutdown()
    server.close()


def _restart(server):
    from pgserver._commands import pg_ctl

    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user, timeout=60)
    time.sleep(DOWN_SECONDS)
    server.ensure_postgres_running()


def _post(port, path, body, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json", **headers})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type"), response.getheader("Retry-After"), response.read()
    finally:
        connection.close()


def test_postgres_restarted_under_load(own_postgres, served):
    app, pg = own_postgres
    port = served
    world = World(app.registry)
    clinic_id = world.clinic()
    world.webhook(clinic_id=clinic_id)  # events are recorded only while an address is registered
    auth = {"Authorization": f"Bearer {world.key(clinic_id=clinic_id)}"}
    base = f"/v1/clinics/{clinic_id}"
    with world.db() as db:
        clinic = open_clinic(db, clinic_id)
        item_id = inventory.create_item(db, clinic, name="Amoxicillin 500 mg", low_at=5).id
    with world.db() as db:
        clinic = open_clinic(db, clinic_id)
        inventory.report_till(db, clinic, inventory_age())  # a fresh till: bands are known, changes are events
        inventory.set_stock(db, clinic, item_id, 6, inventory_age())
    status, _, _, body = _post(port, f"{base}/patients", PatientCreate.EXAMPLE,
                               {**auth, "Idempotency-Key": str(uuid.uuid4())})
    assert status == 201, body
    patient_id = json.loads(body)["data"]["id"]

    work = queue.Queue()
    for n in range(PER_KIND):
        work.put(("patient", f"{base}/patients", dict(PatientCreate.EXAMPLE, external_id=f"LOAD-{n}")))
        work.put(("allergy", f"{base}/allergies", {"patient_id": patient_id, "substance": {"text": f"Load {n}"},
                                                   "client_reference": f"load-{n}"}))
        movement = {"kind": "receipt", "quantity": 1} if n % 2 else {"kind": "dispense", "quantity": 1}
        work.put(("movement", f"{base}/inventory/items/{item_id}/movements", movement))
    logical = {}  # idempotency key -> (kind, body, final status)
    answers = []  # (started, finished, status, content type, retry-after, body)
    lock = threading.Lock()
    up_at = []
    give_up = time.monotonic() + 90

    def client():
        while True:
            try:
                kind, path, body = work.get_nowait()
            except queue.Empty:
                return
            key = str(uuid.uuid4())
            while True:
                started = time.monotonic()
                try:
                    status, content_type, retry_after, raw = _post(port, path, body, {**auth, "Idempotency-Key": key})
                except OSError as exc:  # the application itself must never drop a connection
                    status, content_type, retry_after, raw = None, None, None, repr(exc).encode()
                with lock:
                    answers.append((started, time.monotonic(), status, content_type, retry_after, raw))
                if status not in (503, None) or time.monotonic() > give_up:
                    break
                time.sleep(0.1)  # keep the load on while PostgreSQL is down
            with lock:
                logical[key] = (kind, body, status)
            time.sleep(0.02)

    threads = [threading.Thread(target=client) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(answers) < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    _restart(pg)
    up_at.append(time.monotonic())
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)

    statuses = [answer[2] for answer in answers]
    assert None not in statuses, [a[5] for a in answers if a[2] is None][:3]
    assert 500 not in statuses, [a[5] for a in answers if a[2] == 500][:3]
    unavailable = [a for a in answers if a[2] == 503]
    assert unavailable, "some requests met the restart"
    for _, _, _, content_type, retry_after, raw in unavailable:
        problem = json.loads(raw)
        assert content_type == "application/problem+json" and problem["code"] == "service_unavailable"
        assert retry_after and "psycopg" not in raw.decode()
    up = up_at[0]
    late = [a for a in unavailable if a[0] > up + RECOVERY_SECONDS]
    assert not late, f"{len(late)} requests started {RECOVERY_SECONDS} s after PostgreSQL was back still got 503"
    recovered = min(a[1] for a in answers if a[0] >= up and a[2] and a[2] < 500)
    assert recovered - up < RECOVERY_SECONDS

    finals = {kind: [] for kind in ("patient", "allergy", "movement")}
    for kind, body, status in logical.values():
        finals[kind].append((body, status))
    assert len(logical) == 3 * PER_KIND
    assert {s for _, s in finals["patient"]} == {201} and {s for _, s in finals["allergy"]} == {202}
    assert {s for _, s in finals["movement"]} <= {201, 409}
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        external_ids = list(db.scalars(select(Patient.external_id).where(Patient.external_id.like("LOAD-%"))))
        assert sorted(external_ids) == sorted(f"LOAD-{n}" for n in range(PER_KIND)), "each patient exactly once"
        references = list(db.scalars(select(Submission.client_reference)
                                     .where(Submission.client_reference.like("load-%"))))
        assert sorted(references) == sorted(f"load-{n}" for n in range(PER_KIND)), "each submission exactly once"
        movements = db.scalar(select(func.count()).select_from(StockMovement)
                              .where(StockMovement.item_id == item_id))
        accepted = sum(1 for _, status in finals["movement"] if status == 201)
        assert movements == accepted + 1, "every 201'd movement once, plus the initial stock"
        item = db.get(InventoryItem, item_id)
        total = db.scalar(select(func.sum(StockMovement.change)).where(StockMovement.item_id == item_id))
        assert item.quantity == total
        chain = list(db.scalars(select(Event).where(Event.type == "inventory.availability.changed",
                                                    Event.subject_id == item_id).order_by(Event.seq)))
    assert len(chain) >= 2
    for before, after in zip(chain, chain[1:]):
        assert after.data["previous_band"] == before.data["band"], "no event lost or written twice"
    assert chain[-1].data["band"] == stock_band(item.quantity, item.low_at)


def inventory_age():
    import datetime

    from clinicrecords.inventory import bands
    return datetime.timedelta(minutes=bands.DEFAULT_MAX_AGE_MINUTES)
