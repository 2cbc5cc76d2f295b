"""The sweep isolates each job's failure: a job whose row cannot be read whole (a `since` the calendar cannot
hold, stored before kick-offs refused it) stops neither the restarts nor the removal of expired exports. A cancel
while the worker writes is an expected outcome: one line in the log, no ERROR, no traceback."""

import datetime
import logging
import uuid

from sqlalchemy import select, text, update

from clinicrecords.exports.models import ExportJob
from clinicrecords.exports.storage import job_directory, root_of
from clinicrecords.exports import tasks as export_tasks
from clinicrecords.exports.tasks import sweep_exports
from tests.common.clinical import headers, sandbox
from tests.exports.conftest import run_queued
from tests.exports.flow import kick_off, manifest_of, status_url


def _job_id(url):
    return uuid.UUID(url.rsplit("/", 1)[1])


def test_a_job_that_cannot_be_read_stops_no_sweep(queued_app, world, registry):
    clinic_id, key = sandbox(world)
    expired_url = status_url(kick_off(queued_app, clinic_id, key, "?_type=Patient"))
    run_queued()
    manifest_of(queued_app, key, expired_url)
    expired = _job_id(expired_url)
    other_clinic, other_key = sandbox(world)
    broken = _job_id(status_url(kick_off(queued_app, other_clinic, other_key, "?_type=Patient")))
    with world.db() as db:
        db.execute(update(ExportJob).where(ExportJob.id == expired).values(
            expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)))
        # A stalled job whose since lies before year 1 in UTC: reading its row raises in the driver.
        db.execute(text("UPDATE control.export_jobs SET since = '0001-01-01T00:00:00+14:00', status = 'running', "
                        "heartbeat_at = now() - interval '1 day' WHERE id = :id"), {"id": broken})
    sweep_exports.call_local()  # the periodic task, in a request of its own as the worker runs it
    with world.db() as db:
        assert db.get(ExportJob, expired) is None
        assert db.scalar(select(ExportJob.heartbeat_at).where(ExportJob.id == broken)) > \
            datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)
    assert not job_directory(root_of(registry), clinic_id, expired).exists()


def test_a_cancel_while_the_worker_writes_logs_one_line(queued_app, world, monkeypatch, caplog):
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(queued_app, clinic_id, key, "?_type=Patient,Condition"))
    real_writer = export_tasks.write_export

    def cancelled_as_it_writes(*args, **kwargs):
        # The client's DELETE arrives once the attempt has started: its directory goes from under the writer.
        queued_app.delete(url, headers=headers(key), status=202)
        return real_writer(*args, **kwargs)

    monkeypatch.setattr(export_tasks, "write_export", cancelled_as_it_writes)
    with caplog.at_level(logging.INFO, logger="clinicrecords.exports"):
        run_queued()
    records = [record for record in caplog.records if record.name.startswith("clinicrecords.exports")]
    assert [record.levelno for record in records] == [logging.INFO], caplog.text
    assert records[0].exc_info is None and "cancelled" in records[0].getMessage()
    queued_app.get(url, headers=headers(key), status=404)
