"""Writing an export on Huey, one attempt at a time, and the sweeps that keep jobs alive and remove them.

An attempt: the job row is locked, `attempt` moves on and the job is `running` (committed), the earlier
attempts' directories are removed; the writer then writes this attempt's directory on a snapshot of its own
(clinicrecords.exports.writer); the files are registered and the job completed in one transaction, only if the
job is still on this attempt. So a worker killed mid-export leaves a `running` job whose attempt never
finishes: the sweep (and a starting worker) hand it to a worker again, which starts a new attempt with a new
snapshot and transactionTime, and nothing of the killed attempt is ever served. A job is a row, not a queue
entry: a queue that lost its messages (a Redis failover) loses no job, the sweep queues it again.
"""

import datetime
import logging
import time
import uuid

from huey import crontab
from sqlalchemy import delete, func, select, update

from clinicrecords.exports import storage
from clinicrecords.exports.models import ExportFile, ExportJob
from clinicrecords.exports.parameters import ignored_parameters
from clinicrecords.exports.writer import write_export
from clinicrecords.settings import app_settings
from clinicrecords.tasks import huey, periodic_task, prepared_request, task

log = logging.getLogger(__name__)

GAVE_UP = "The export failed in {attempts} attempts; kick it off again."


def _commit(request):
    request.tm.commit()
    request.tm.begin()


def _locked(db, job_id):
    return db.scalar(select(ExportJob).where(ExportJob.id == job_id).with_for_update()
                     .execution_options(populate_existing=True))


def _start_attempt(request, job_id, root, max_attempts):
    """Lock the job and start its next attempt (committed); None when there is nothing to run."""
    db = request.db
    job = _locked(db, job_id)
    if job is None or job.status not in ("queued", "running"):
        return None
    if job.attempt >= max_attempts:
        job.status, job.error, job.finished_at = "failed", GAVE_UP.format(attempts=job.attempt), func.now()
        _commit(request)
        storage.remove_other_attempts(root, job.clinic_id, job.id, keep=None)
        return None
    job.attempt += 1
    job.status = "running"
    job.heartbeat_at = func.now()
    db.flush()
    attempt = (job.clinic_id, job.attempt, list(job.types), job.since, job.base_url, job.granted, job.owner_id,
               ignored_parameters(job.level, job.request_url), job.level)
    _commit(request)
    return attempt


def _file_rows(job_id, attempt, written):
    for section, files in (("output", written.output), ("error", written.error), ("deleted", written.deleted)):
        for position, found in enumerate(files):
            yield ExportFile(job_id=job_id, attempt=attempt, section=section, position=position, type=found.type,
                             name=found.name, count=found.count, size=found.size, etag=found.etag,
                             permission=found.permission,
                             patient_ids=sorted({str(patient_id) for patient_id in found.patient_ids}))


def _finish_attempt(request, job_id, attempt, written):
    """Register the attempt's files and complete the job, if it is still on this attempt. True when it was."""
    db = request.db
    job = _locked(db, job_id)
    if job is None or job.status != "running" or job.attempt != attempt:
        return False
    db.add_all(_file_rows(job_id, attempt, written))
    job.status, job.transaction_time, job.finished_at = "completed", written.transaction_time, func.now()
    _commit(request)
    return True


def _still_wanted(request, job_id, attempt):
    """Whether the job still runs this attempt (not cancelled, expired, removed or superseded)."""
    status, current = request.db.execute(select(ExportJob.status, ExportJob.attempt).where(
        ExportJob.id == job_id)).one_or_none() or (None, None)
    return status == "running" and current == attempt


def _give_back(request, job_id, attempt, reason):
    """A failed attempt: queued again (a new attempt), or failed once `exports.max_attempts` are spent."""
    db = request.db
    job = _locked(db, job_id)
    if job is None or job.status != "running" or job.attempt != attempt:
        return
    job.heartbeat_at = func.now()
    _commit(request)
    log.warning("export %s: attempt %d failed (%s); it will be restarted", job_id, attempt, reason)
    request.enqueue(run_export, str(job_id))
    _commit(request)


def run_attempt(request, job_id):
    """Run the job's next attempt: safe to run twice, concurrently, or after a crash."""
    settings = app_settings(request.registry).exports
    root = storage.root_of(request.registry)
    started = _start_attempt(request, job_id, root, settings.max_attempts)
    if started is None:
        return
    clinic_id, attempt, types, since, base_url, granted, owner_id, ignored, level = started
    storage.remove_other_attempts(root, clinic_id, job_id, keep=attempt)
    directory = storage.attempt_directory(root, clinic_id, job_id, attempt)
    storage.remove(directory)
    try:
        directory.mkdir(parents=True)
        written = write_export(clinic_id, types=types, since=since, directory=directory,
                               split_bytes=settings.split_bytes, base_url=base_url, registry=request.registry,
                               granted=frozenset(granted), owner_id=owner_id, warnings=ignored,
                               level=level)
    except Exception as exc:
        storage.remove(directory)
        request.tm.abort()
        request.tm.begin()
        if not _still_wanted(request, job_id, attempt):
            # Cancelled (or expired, or superseded) while it wrote: its directory went from under the writer. An
            # expected outcome, one line.
            log.info("export %s: attempt %d stopped: the export was cancelled or replaced meanwhile (%s)", job_id,
                     attempt, type(exc).__name__)
            return
        log.exception("export %s: attempt %d failed", job_id, attempt)
        _give_back(request, job_id, attempt, type(exc).__name__)
        return
    if settings.finish_delay_seconds:
        time.sleep(settings.finish_delay_seconds)  # test-only setting: lets a test end the worker mid-export
    if not _finish_attempt(request, job_id, attempt, written):
        storage.remove(directory)  # cancelled, expired or superseded meanwhile: nothing of it is kept


@task()
def run_export(request, job_id):
    run_attempt(request, uuid.UUID(job_id))


def restart_stalled_exports(request, now=None):
    """Queue again every job queued or running whose attempt has not moved for `exports.stale_after_seconds`
    (its worker died, or its queue entry was lost). Returns how many."""
    db = request.db
    stale_after = datetime.timedelta(seconds=app_settings(request.registry).exports.stale_after_seconds)
    now = now or db.scalar(select(func.now()))
    # Ids only: a job whose row cannot be read whole (a `since` stored before kick-offs refused what the calendar
    # cannot hold) must not stop the others from being restarted.
    job_ids = db.scalars(select(ExportJob.id).where(ExportJob.status.in_(("queued", "running")),
                                                    ExportJob.heartbeat_at <= now - stale_after)
                         .order_by(ExportJob.created_at).with_for_update(skip_locked=True)).all()
    if job_ids:
        db.execute(update(ExportJob).where(ExportJob.id.in_(job_ids)).values(heartbeat_at=now))
    for job_id in job_ids:
        request.enqueue(run_export, str(job_id))
    return len(job_ids)


def remove_expired_exports(request, now=None):
    """Delete every job past its expiry with its files. Returns how many."""
    db = request.db
    root = storage.root_of(request.registry)
    now = now or db.scalar(select(func.now()))
    expired = db.execute(delete(ExportJob).where(ExportJob.expires_at <= now)
                         .returning(ExportJob.clinic_id, ExportJob.id)).all()
    for clinic_id, job_id in expired:
        storage.remove(storage.job_directory(root, clinic_id, job_id))
    return len(expired)


SWEEP_STEPS = (restart_stalled_exports, remove_expired_exports)


@periodic_task(crontab(minute="*"))
def sweep_exports(request):
    """Each step in a savepoint of its own: one that fails is logged and the others still run, this minute and
    every minute after."""
    for step in SWEEP_STEPS:
        try:
            with request.db.begin_nested():
                step(request)
        except Exception:
            log.exception("export sweep: %s failed", step.__name__)


@huey.on_startup()
def restart_exports_on_worker_start():
    with prepared_request() as request:
        with request.tm:
            count = restart_stalled_exports(request)
    if count:
        log.info("restarted %d interrupted export(s)", count)
