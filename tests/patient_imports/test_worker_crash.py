"""The real consumer path (tests/common/consumer.py): a separate worker process ended mid-import (SIGKILL),
then a restarted worker finishes the job from last_processed_row without creating any patient twice."""

import signal
import uuid

import webtest
from sqlalchemy import func, select

from clinicrecords.patients.imports.models import PatientImport, PatientImportRow, PatientImportRun
from clinicrecords.patients.models import Patient
from tests.common.clinical import clinic_db, headers
from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for

ROWS = 8
# Slow rows so the test can end the worker mid-import; resume at once on start (no staleness wait).
WORKER_SETTINGS = {"patient_imports.row_delay_seconds": "0.3", "patient_imports.stale_after_seconds": "0",
                   "database.pool_size": "2"}


def _job(world, clinic_id, import_id):
    with clinic_db(world, clinic_id) as db:
        job = db.get(PatientImport, import_id)
        patients = db.scalar(select(func.count()).select_from(Patient))
        ledger = db.scalar(select(func.count()).select_from(PatientImportRow))
        return job.status, job.last_processed_row, dict(job.counts), patients, ledger


def test_a_worker_killed_mid_import_resumes_without_duplicates(world, make_app, engine, queue_on_disk):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    # This process queues on the consumer's SQLite queue and answers at once (the job stays validating).
    app = webtest.TestApp(make_app(**{"huey.backend": "sqlite", "huey.sqlite_path": str(queue_on_disk / "huey.db"),
                                      "huey.immediate": "false", "patient_imports.wait_seconds": "0"}),
                          extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    rows = [{"given_name": f"Given{n}", "family_name": f"Crash{n}", "birth_date": "1970-01-01"}
            for n in range(1, ROWS + 1)]
    response = app.post_json(f"/v1/clinics/{clinic_id}/patient-imports", {"input_format": "json_array", "data": rows},
                             headers=headers(key), status=202)
    import_id = uuid.UUID(response.json["data"]["id"])
    ini, env = consumer_config(queue_on_disk, engine, extra=WORKER_SETTINGS)

    with open(queue_on_disk / "worker-1.log", "wb") as log:
        worker = start_consumer(ini, env, workers=1, log=log)
        try:
            assert wait_for(lambda: _job(world, clinic_id, import_id)[1] >= 3, 60), "three rows written"
        finally:
            stop_consumer(worker, signal.SIGKILL)
    status, done, counts, patients, ledger = _job(world, clinic_id, import_id)
    assert status == "validating" and 3 <= done < ROWS
    # Every committed row has its patient and ledger entry, and nothing of an unfinished row remains.
    assert patients == ledger == counts["created"] == done

    with open(queue_on_disk / "worker-2.log", "wb") as log:
        worker = start_consumer(ini, env, workers=1, log=log)
        try:
            assert wait_for(lambda: _job(world, clinic_id, import_id)[0] != "validating", 60), "the job finished"
        finally:
            stop_consumer(worker)
    status, done, counts, patients, ledger = _job(world, clinic_id, import_id)
    assert (status, done, patients, ledger) == ("succeeded", ROWS, ROWS, ROWS)
    assert counts == {"created": ROWS, "flagged_duplicate": 0, "skipped_already_imported": 0, "failed": 0}
    with clinic_db(world, clinic_id) as db:
        names = db.scalars(select(Patient.family_name)).all()
        assert sorted(names) == sorted(f"Crash{n}" for n in range(1, ROWS + 1))
        assert db.scalar(select(func.count()).select_from(PatientImportRun)) == 0
