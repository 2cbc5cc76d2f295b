"""The real consumer path: a separate worker process ended mid-import (SIGKILL), then a restarted worker
finishes the job from last_processed_row without creating any patient twice."""

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import webtest
from sqlalchemy import func, select

from clinicrecords import tasks
from clinicrecords.patients.imports.models import PatientImport, PatientImportRow, PatientImportRun
from clinicrecords.patients.models import Patient
from tests.common.clinical import clinic_db, headers
from tests.conftest import ROOT

ROWS = 8


@pytest.fixture
def queue_settings(settings, tmp_path):
    overrides = {"huey.backend": "sqlite", "huey.sqlite_path": str(tmp_path / "huey.db"), "huey.immediate": "false",
                 "patient_imports.wait_seconds": "0"}
    yield overrides
    tasks.configure(settings)


def _worker_ini(settings, overrides, tmp_path):
    values = dict(settings, **overrides)
    # Slow rows so the test can end the worker mid-import; resume at once on start (no staleness wait).
    values.update({"patient_imports.row_delay_seconds": "0.3", "patient_imports.stale_after_seconds": "0",
                   "database.pool_size": "2"})
    path = tmp_path / "worker.ini"
    lines = ["[app:main]", "use = egg:clinicrecords"]
    lines += [f"{name} = {value}" for name, value in values.items() if name != "use"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _start_worker(ini, log):
    return subprocess.Popen(
        [sys.executable, "-c", "from clinicrecords.tasks.worker import main; main()", str(ini), "--workers", "1"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def _job(world, clinic_id, import_id):
    with clinic_db(world, clinic_id) as db:
        job = db.get(PatientImport, import_id)
        patients = db.scalar(select(func.count()).select_from(Patient))
        ledger = db.scalar(select(func.count()).select_from(PatientImportRow))
        return job.status, job.last_processed_row, dict(job.counts), patients, ledger


def _wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_worker_killed_mid_import_resumes_without_duplicates(world, make_app, settings, queue_settings, tmp_path):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    app = webtest.TestApp(make_app(**queue_settings), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    rows = [{"given_name": f"Given{n}", "family_name": f"Crash{n}", "birth_date": "1970-01-01"}
            for n in range(1, ROWS + 1)]
    response = app.post_json(f"/v1/clinics/{clinic_id}/patient-imports", {"input_format": "json_array", "data": rows},
                             headers=headers(key), status=202)
    import_id = uuid.UUID(response.json["data"]["id"])
    ini = _worker_ini(settings, queue_settings, tmp_path)

    with open(tmp_path / "worker-1.log", "wb") as log:
        worker = _start_worker(ini, log)
        try:
            _wait_for(lambda: _job(world, clinic_id, import_id)[1] >= 3, 60, "three rows written")
        finally:
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait(10)
    status, done, counts, patients, ledger = _job(world, clinic_id, import_id)
    assert status == "validating" and 3 <= done < ROWS
    # Every committed row has its patient and ledger entry, and nothing of an unfinished row remains.
    assert patients == ledger == counts["created"] == done

    with open(tmp_path / "worker-2.log", "wb") as log:
        worker = _start_worker(ini, log)
        try:
            _wait_for(lambda: _job(world, clinic_id, import_id)[0] != "validating", 60, "the job to finish")
        finally:
            worker.send_signal(signal.SIGINT)
            try:
                worker.wait(15)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(10)
    status, done, counts, patients, ledger = _job(world, clinic_id, import_id)
    assert (status, done, patients, ledger) == ("succeeded", ROWS, ROWS, ROWS)
    assert counts == {"created": ROWS, "flagged_duplicate": 0, "skipped_already_imported": 0, "failed": 0}
    with clinic_db(world, clinic_id) as db:
        names = db.scalars(select(Patient.family_name)).all()
        assert sorted(names) == sorted(f"Crash{n}" for n in range(1, ROWS + 1))
        assert db.scalar(select(func.count()).select_from(PatientImportRun)) == 0
