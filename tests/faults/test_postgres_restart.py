"""PostgreSQL restarted under load, on an instance of its own (never the suite's database), the application
served by waitress on 127.0.0.1 in this process and a real Huey consumer (tests/common/consumer.py) on a
SQLite queue: six clients keep sending patient creations, allergy submissions, stock movements and patient
imports (some with an invalid row, then run-valid-rows) while PostgreSQL stops (fast shutdown), stays down
1.5 s and starts again; the consumer is writing import rows (slowed to 0.1 s each) through the outage.

Requests in flight and during the outage answer 503 problem+json (never 500, never a dropped connection);
the same application process recovers within seconds (SQLAlchemy invalidates the pool's dead connections on
the first disconnect); and nothing is half-written: every logical write, retried with its Idempotency-Key
until it is answered, exists exactly once, the item's cached quantity equals its ledger, and its
availability events form an unbroken chain that ends at the stored band. Every import ends succeeded with
each valid row's patient written exactly once, its counts and ledger equal to its rows, and one
`patient_import.finished` event per outcome.

The import route takes no Idempotency-Key (it is sent and ignored): its retry safety is the content hash, so
a retry of an import whose first attempt committed before its 503 answers 409 already_imported naming it,
and a retried run-valid-rows answers 409 import_not_runnable once the first one committed."""

import http.client
import json
import queue
import re
import shutil
import tempfile
import threading
import time
import urllib.parse
import uuid
from pathlib import Path

import pytest
from sqlalchemy import func, select

from clinicrecords import make_config
from tests.common import task_queue
from clinicrecords.clinics.services import CLINIC_SCHEMAS, open_clinic
from clinicrecords.db import embedded, migrations
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.events.models import Event
from clinicrecords.inventory import services as inventory
from clinicrecords.inventory.bands import stock_band
from clinicrecords.inventory.models import InventoryItem, StockMovement
from clinicrecords.patients.imports.models import PatientImport, PatientImportRow
from clinicrecords.patients.imports.tasks import resume_interrupted_imports
from clinicrecords.settings import app_settings
from clinicrecords.patients.models import Patient
from clinicrecords.patients.schemas import PatientCreate
from clinicrecords.review.models import Submission
from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for
from tests.common.serving import serving
from tests.common.world import World

THREADS = 6
PER_KIND = 30
IMPORTS = 12
IMPORT_ROWS = 4  # valid rows per import; every other import also carries an invalid one (needs_review first)
DOWN_SECONDS = 1.5
RECOVERY_SECONDS = 5.0


@pytest.fixture
def own_postgres(settings, monkeypatch):
    """An application on a PostgreSQL of its own under a temporary directory, and that server."""
    monkeypatch.delenv("CLINICRECORDS_VAR", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    base = Path(tempfile.mkdtemp(prefix="clinicrecords-restart-"))
    base.chmod(0o755)  # as root, pgserver runs PostgreSQL as its own user, which must reach the data directory
    # The queue is a SQLite file under `base` shared with the consumer; an import POST waits up to 1 s for
    # its rows (some answer finished, some 202), polling the database through the outage.
    overrides = {"clinicrecords.var": str(base), "database_url": "embedded", "database.name": "restart_under_load",
                 "database.pool_size": str(2 * THREADS + 4), "huey.backend": "sqlite", "huey.immediate": "false",
                 "huey.sqlite_path": str(base / "huey.db"), "retry.attempts": "1",
                 "patient_imports.wait_seconds": "1", "patient_imports.stale_after_seconds": "3"}
    with task_queue.kept():
        app = make_config(dict(settings, **overrides)).make_wsgi_app()
        server = embedded._servers[base / "pgdata"]
        try:
            migrations.migrate_all(app.registry["db.engine"], CLINIC_SCHEMAS, workers=1,
                                   settings=app_settings(app.registry))
            yield app, server
        finally:
            app.registry["db.engine"].dispose()
            embedded._servers.pop(base / "pgdata").cleanup()
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def served(own_postgres):
    app, _ = own_postgres
    with serving(app, threads=THREADS + 2, ident="") as base_url:
        yield urllib.parse.urlsplit(base_url).port


def _restart(server):
    from pgserver._commands import pg_ctl

    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user, timeout=60)
    time.sleep(DOWN_SECONDS)
    server.ensure_postgres_running()


@pytest.fixture
def consumer(own_postgres):
    """A real Huey consumer on the same queue and PostgreSQL, writing import rows slowly enough that the
    restart meets some mid-import. Its log is printed when the test fails."""
    app, _ = own_postgres
    base = Path(app.registry.settings["clinicrecords.var"])
    ini, env = consumer_config(base, app.registry["db.engine"],
                               extra={"patient_imports.row_delay_seconds": "0.1", "database.pool_size": "4"})
    with open(base / "worker.log", "wb") as log:
        process = start_consumer(ini, env, workers=2, log=log)
        try:
            assert wait_for(lambda: b"Huey consumer started" in (base / "worker.log").read_bytes(), 60)
            time.sleep(0.5)  # its startup hooks (resuming interrupted imports) run before the load
            yield process
        finally:
            stop_consumer(process)
            print((base / "worker.log").read_text(errors="replace")[-4000:])


def _post(port, path, body, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        if body is None:
            connection.request("POST", path, headers=headers)
        else:
            connection.request("POST", path, body=json.dumps(body),
                               headers={"Content-Type": "application/json", **headers})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type"), response.getheader("Retry-After"), response.read()
    finally:
        connection.close()


def _import_rows(n):
    """`IMPORT_ROWS` valid rows, with an invalid one in the middle for odd n."""
    rows = [{"given_name": "Imported", "family_name": f"Import{n}x{r}", "birth_date": "1975-05-05",
             "external_id": f"IMP-{n}-{r}"} for r in range(IMPORT_ROWS)]
    if n % 2:
        rows.insert(IMPORT_ROWS // 2, {"given_name": "Bad", "family_name": f"Bad{n}", "birth_date": "not a date"})
    return rows


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _import_flow(base, n):
    """A logical import: POST it; if it needs review, run its valid rows. Returns (import id, [statuses])."""
    def flow(send):
        status, raw = send(f"{base}/patient-imports", {"input_format": "json_array", "data": _import_rows(n)})
        answer = json.loads(raw)
        if status == 409:  # a retry after a 503 whose attempt had committed
            assert answer["code"] == "already_imported", answer
            return uuid.UUID(_UUID.search(answer["detail"]).group(0)), [status]
        assert status in (201, 202), answer
        job = answer["data"]
        if job["status"] != "needs_review":
            return uuid.UUID(job["id"]), [status]
        ran, raw = send(f"{base}/patient-imports/{job['id']}/run-valid-rows", None)
        assert ran in (200, 202) or json.loads(raw)["code"] == "import_not_runnable", raw
        return uuid.UUID(job["id"]), [status, ran]
    return flow


def _write_flow(path, body):
    def flow(send):
        return send(path, body)[0]
    return flow


def test_postgres_restarted_under_load(own_postgres, served, consumer):
    app, pg = own_postgres
    port = served
    world = World(app.registry)
    clinic_id = world.clinic()
    world.webhook(clinic_id=clinic_id)  # events are recorded only while an address is registered
    auth = {"Authorization": f"Bearer {world.key(clinic_id=clinic_id)}"}
    base = f"/v1/clinics/{clinic_id}"
    projection = inventory.network_projection(app.registry)
    with world.db() as db:
        clinic = open_clinic(db, clinic_id)
        item_id = inventory.create_item(db, projection, clinic, name="Amoxicillin 500 mg", low_at=5).id
    with world.db() as db:
        clinic = open_clinic(db, clinic_id)
        # A fresh till: bands are known, changes are events.
        inventory.report_till(db, projection, clinic, inventory_age())
        inventory.set_stock(db, projection, clinic, item_id, 6, inventory_age())
    status, _, _, body = _post(port, f"{base}/patients", PatientCreate.EXAMPLE,
                               {**auth, "Idempotency-Key": str(uuid.uuid4())})
    assert status == 201, body
    patient_id = json.loads(body)["data"]["id"]

    work = queue.Queue()  # (kind, flow): a flow sends its requests through `send` and returns its outcome
    for n in range(PER_KIND):
        body = dict(PatientCreate.EXAMPLE, external_id=f"LOAD-{n}")
        work.put(("patient", body, _write_flow(f"{base}/patients", body)))
        body = {"patient_id": patient_id, "substance": {"text": f"Load {n}"}, "client_reference": f"load-{n}"}
        work.put(("allergy", body, _write_flow(f"{base}/allergies", body)))
        body = {"kind": "receipt", "quantity": 1} if n % 2 else {"kind": "dispense", "quantity": 1}
        work.put(("movement", body, _write_flow(f"{base}/inventory/items/{item_id}/movements", body)))
        if n % (PER_KIND // IMPORTS) == 0 and n // (PER_KIND // IMPORTS) < IMPORTS:
            work.put(("import", n // (PER_KIND // IMPORTS), _import_flow(base, n // (PER_KIND // IMPORTS))))
    logical = []  # (kind, body, outcome)
    answers = []  # (started, finished, status, content type, retry-after, body)
    lock = threading.Lock()
    up_at = []
    give_up = time.monotonic() + 90

    def send(path, body):
        """One logical request: the same Idempotency-Key until it is answered by something other than 503."""
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
                return status, raw
            time.sleep(0.1)  # keep the load on while PostgreSQL is down

    def client():
        while True:
            try:
                kind, body, flow = work.get_nowait()
            except queue.Empty:
                return
            outcome = flow(send)
            with lock:
                logical.append((kind, body, outcome))
            time.sleep(0.02)

    threads = [threading.Thread(target=client) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    # Stop PostgreSQL under load, while the consumer is in the middle of writing an import's rows.
    assert wait_for(lambda: len(answers) >= 20 and _mid_import(world, clinic_id), 60), "an import being written"
    _restart(pg)
    up_at.append(time.monotonic())
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    assert consumer.poll() is None, "the consumer kept running through the restart"

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

    finals = {kind: [] for kind in ("patient", "allergy", "movement", "import")}
    for kind, body, outcome in logical:
        finals[kind].append((body, outcome))
    assert len(logical) == 3 * PER_KIND + IMPORTS
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

    _imports_complete_once(world, clinic_id, {n: job_id for n, (job_id, _) in finals["import"]})


def _mid_import(world, clinic_id):
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        return db.scalar(select(func.count()).select_from(PatientImport).where(
            PatientImport.status == "validating", PatientImport.last_processed_row.between(1, IMPORT_ROWS - 2)))


def _import_statuses(world, clinic_id):
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        return dict(db.execute(select(PatientImport.id, PatientImport.status)).all())


def _imports_complete_once(world, clinic_id, jobs):
    """Every logical import (n -> the job its client ended with) ends succeeded with each valid row written once.

    A writer the outage stopped is retried by Huey (3 times, 2 s apart); one that gave up waits for the
    periodic sweep, which runs here on every poll: it resumes only runs whose heartbeat (one per written row)
    is 3 s old, so a live writer is left alone. A second writer on a job is harmless (tasks.py)."""
    def settled():
        if "validating" not in _import_statuses(world, clinic_id).values():
            return True
        with world.request() as request:
            resume_interrupted_imports(request)
        return False

    assert wait_for(settled, 60), _import_statuses(world, clinic_id)
    assert sorted(jobs) == list(range(IMPORTS))
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        external_ids = list(db.scalars(select(Patient.external_id).where(Patient.external_id.like("IMP-%"))))
        assert sorted(external_ids) == sorted(f"IMP-{n}-{r}" for n in range(IMPORTS) for r in range(IMPORT_ROWS)), \
            "each valid import row's patient exactly once"
        finished = {}
        for job in db.scalars(select(PatientImport)):
            ledger = db.execute(select(PatientImportRow.row, PatientImportRow.outcome, PatientImportRow.patient_id)
                                .where(PatientImportRow.import_id == job.id)).all()
            events = [e.data["status"] for e in db.scalars(select(Event).where(
                Event.type == "patient_import.finished", Event.subject_id == job.id).order_by(Event.seq))]
            if job.status == "needs_review":  # an attempt answered 503 after committing; its retry made another
                assert job.id not in jobs.values() and not ledger and events == ["needs_review"]
                continue
            assert job.status == "succeeded", (job.id, job.status, job.row_errors)
            invalid = job.row_count - IMPORT_ROWS
            assert job.counts == {"created": IMPORT_ROWS, "flagged_duplicate": 0, "skipped_already_imported": 0,
                                  "failed": invalid}, "its counts equal its rows"
            assert job.last_processed_row == job.row_count and job.rows == []
            assert len(ledger) == IMPORT_ROWS and {o for _, o, _ in ledger} == {"created"}
            assert len({p for _, _, p in ledger}) == IMPORT_ROWS
            assert events == ["needs_review"] * invalid + ["succeeded"], "one finished event per outcome"
            finished[job.id] = job
        assert set(finished) == set(jobs.values()), "each logical import is exactly one succeeded job"


def inventory_age():
    import datetime

    from clinicrecords.inventory import bands
    return datetime.timedelta(minutes=bands.DEFAULT_MAX_AGE_MINUTES)
