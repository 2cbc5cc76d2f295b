"""The real consumer path (tests/common/consumer.py): a worker killed mid-export (SIGKILL) leaves a running job
and an attempt's files no one serves; a restarted worker starts a new attempt with a new snapshot and
transactionTime, removes the killed attempt's files and completes; the status says it restarted."""

import signal
import uuid

import webtest

from clinicrecords.exports.models import ExportFile, ExportJob
from clinicrecords.exports.storage import job_directory
from tests.common.clinical import add_patient, headers
from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for
from tests.common.fhir import assert_valid_fhir
from tests.exports.flow import kick_off, local, ndjson, status_url


def _job(world, job_id):
    with world.db() as db:
        job = db.get(ExportJob, job_id)
        files = db.query(ExportFile).filter(ExportFile.job_id == job_id).count()
        return job.status, job.attempt, job.transaction_time, files


def test_a_worker_killed_mid_export_restarts_it_with_a_new_attempt(world, make_app, engine, queue_on_disk):
    exports_path = queue_on_disk / "exports"
    app = webtest.TestApp(make_app(**{
        "huey.backend": "sqlite", "huey.sqlite_path": str(queue_on_disk / "huey.db"), "huey.immediate": "false",
        "exports.path": str(exports_path), "exports.retry_after_seconds": "0"}),
        extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    workspace_id, clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    add_patient(world, clinic_id, family_name="Killed")
    url = status_url(kick_off(app, clinic_id, key, "?_type=Patient"))
    job_id = uuid.UUID(url.rsplit("/", 1)[1])
    directory = job_directory(exports_path, clinic_id, job_id)

    # The first worker writes its attempt's files, then stalls before finishing (a test-only pause) and is killed.
    ini, env = consumer_config(queue_on_disk, engine, extra={
        "exports.path": str(exports_path), "exports.finish_delay_seconds": "30", "exports.stale_after_seconds": "0",
        "database.pool_size": "2"})
    with open(queue_on_disk / "worker-1.log", "wb") as log:
        worker = start_consumer(ini, env, workers=1, log=log)
        try:
            assert wait_for(lambda: any((directory / "attempt-1").glob("*.ndjson")), 60), "attempt 1 wrote its files"
        finally:
            stop_consumer(worker, signal.SIGKILL)
    assert _job(world, job_id)[:2] == ("running", 1)
    assert _job(world, job_id)[3] == 0  # none of the killed attempt's files is registered
    running = app.get(url, headers=headers(key), status=202)
    assert running.headers["X-Progress"] == "running: attempt 1"

    # A worker starting finds the stalled job and runs a second attempt, pausing a moment before finishing.
    ini, env = consumer_config(queue_on_disk, engine, extra={
        "exports.path": str(exports_path), "exports.finish_delay_seconds": "3", "exports.stale_after_seconds": "0",
        "database.pool_size": "2"})
    with open(queue_on_disk / "worker-2.log", "wb") as log:
        worker = start_consumer(ini, env, workers=1, log=log)
        try:
            assert wait_for(lambda: _job(world, job_id)[1] == 2, 60), "a second attempt started"
            progress = app.get(url, headers=headers(key), status=202).headers["X-Progress"]
            assert progress.startswith("running: attempt 2 (restarted 1 time")
            assert wait_for(lambda: _job(world, job_id)[0] == "completed", 60), "the export completed"
        finally:
            stop_consumer(worker)
    assert not (directory / "attempt-1").exists()
    status, attempt, transaction_time, files = _job(world, job_id)
    assert (attempt, files) == (2, 1)
    manifest = app.get(url, headers=headers(key), status=200).json
    assert manifest["extension"] == {"attempts": 2}
    [entry] = manifest["output"]
    resources = ndjson(app.get(local(entry["url"]), headers=headers(key), status=200))
    assert "Killed" in {resource["name"][0]["family"] for resource in resources}
    for resource in resources:
        assert_valid_fhir(resource, "Patient")
