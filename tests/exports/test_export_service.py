"""The export service built without a request (a plain scope over a real clinic's session): the running cap,
the polling pace, one key's jobs only, and the permission a file needs at download."""

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.exports.models import ExportFile
from clinicrecords.exports.parameters import ExportRequest
from clinicrecords.exports.services import ExportService
from clinicrecords.settings import ExportSettings
from tests.common.clinical import sandbox
from tests.common.scopes import clinic_session

WANTED = ExportRequest("system", ("Patient",), None)


def _service(db, clinic, key_id="key_a", granted=("patients:read",), enqueued=None, **settings):
    return ExportService(db, clinic.id, key_id, frozenset(granted), ExportSettings(**settings), "/nonexistent",
                         enqueue=lambda *args: (enqueued if enqueued is not None else []).append(args))


def test_kickoffs_queue_a_task_each_up_to_the_cap(world):
    clinic_id, _ = sandbox(world)
    enqueued = []
    with clinic_session(world, clinic_id) as (db, clinic):
        service = _service(db, clinic, enqueued=enqueued, max_running_per_key=2)
        jobs = [service.kick_off(WANTED, "https://x/$export", "https://x") for _ in range(2)]
        assert [job.status for job in jobs] == ["queued", "queued"] and len(enqueued) == 2
        with pytest.raises(Problem) as refused:
            service.kick_off(WANTED, "https://x/$export", "https://x")
        assert refused.value.code == "too_many_exports" and refused.value.headers["Retry-After"]
        other_key = _service(db, clinic, key_id="key_b", max_running_per_key=2)
        assert other_key.get(jobs[0].id) is None
        assert other_key.kick_off(WANTED, "https://x/$export", "https://x").status == "queued"


def test_a_running_job_is_paced_by_retry_after(world):
    clinic_id, _ = sandbox(world)
    with clinic_session(world, clinic_id) as (db, clinic):
        service = _service(db, clinic, retry_after_seconds=30)
        job = service.kick_off(WANTED, "https://x/$export", "https://x")
        poll = service.poll(job)
        assert (poll.status, poll.progress, poll.retry_after) == ("queued", "queued", 30)
        with pytest.raises(Problem) as sooner:
            service.poll(job)
        assert sooner.value.code == "export_polled_too_soon" and 0 < int(sooner.value.headers["Retry-After"]) <= 30


def test_a_file_needs_its_permission_at_download(world):
    clinic_id, _ = sandbox(world)
    with clinic_session(world, clinic_id) as (db, clinic):
        job = _service(db, clinic).kick_off(WANTED, "https://x/$export", "https://x")
        export_file = ExportFile(job_id=job.id, attempt=1, section="output", position=0, type="Patient",
                                 name="Patient-1.ndjson", count=1, size=2, etag="e", patient_ids=[],
                                 permission="patients:read")
        db.add(export_file)
        db.flush()
        assert _service(db, clinic).readable(export_file) is None  # permitted; no such file on disk
        with pytest.raises(Problem) as refused:
            _service(db, clinic, granted=("conditions:read",)).readable(export_file)
        assert refused.value.code == "scope_missing"
