"""A clinic's Bulk Data export jobs, as the calling key sees them: kick-off, polling, cancel, files.

The job is a row (control.export_jobs); a Huey task writes each attempt (clinicrecords.exports.tasks).
"""

import datetime
import hashlib
import math
import uuid
from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from zope.interface import implementer

from clinicrecords.api.problems import Problem
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.db import locks
from clinicrecords.encounters.services import sensitive_encounter_ids
from clinicrecords.exports import storage
from clinicrecords.exports.interfaces import IExportService
from clinicrecords.exports.models import ExportFile, ExportJob
from clinicrecords.exports.writer import line_index
from clinicrecords.patients.services import hidden_patient_ids
from clinicrecords.settings import app_settings

RUNNING = ("queued", "running")
CANCELLED = "cancelled"
KICKOFF_WINDOW = datetime.timedelta(hours=1)
BLOCK_BYTES = 64 * 1024
SECTIONS = ("output", "error", "deleted")


@dataclass(frozen=True)
class Poll:
    status: str  # queued, running, completed or failed
    progress: str  # X-Progress
    retry_after: int


def progress_text(job):
    if job.status == "queued":
        return "queued"
    text = f"running: attempt {job.attempt}"
    if job.attempt > 1:
        text += f" (restarted {job.attempt - 1} time{'s' if job.attempt > 2 else ''}: an earlier attempt was "
        text += "interrupted; its files were removed)"
    return text


@dataclass(frozen=True)
class Download:
    """What a download of one file serves: the file at `path` without the lines numbered in `left_out` (of
    patients restricted, or encounters marked sensitive, since it was written), `size` bytes, its `etag` (the
    file's own when nothing is left out), and the ids of the patients the lines served are about."""

    path: object
    size: int
    etag: str
    patient_ids: tuple
    left_out: frozenset

    def lines(self):
        """The bytes to serve, a line at a time (the whole file in blocks when nothing is left out)."""
        with self.path.open("rb") as file:
            if not self.left_out:
                while block := file.read(BLOCK_BYTES):
                    yield block
                return
            for number, line in enumerate(file):
                if number not in self.left_out:
                    yield line


@implementer(IExportService)
class ExportService:
    def __init__(self, db, clinic_id, key_id, granted, settings, root, enqueue=None):
        self.db = db
        self.clinic_id = clinic_id
        self.key_id = key_id
        self.granted = granted
        self.settings = settings
        self.root = root
        self.enqueue = enqueue

    def _now(self):
        return self.db.scalar(select(func.now()))

    def kick_off(self, wanted, request_url, base_url, owner_id=None):
        from clinicrecords.exports.tasks import run_export  # the task module imports this one

        # Two kick-offs of one key queue here, so both cannot pass the counts below.
        locks.hold(self.db, "export", self.key_id)
        now = self._now()
        self._refuse_past_hourly_cap(now)
        running = self.db.scalar(select(func.count()).select_from(ExportJob).where(
            ExportJob.clinic_id == self.clinic_id, ExportJob.key_id == self.key_id, ExportJob.status.in_(RUNNING)))
        if running >= self.settings.max_running_per_key:
            raise Problem("too_many_exports", f"This key already has {running} exports queued or running in this "
                          f"clinic (at most {self.settings.max_running_per_key}); retry when one has finished, "
                          "or cancel one.", headers={"Retry-After": str(max(1, self.settings.retry_after_seconds))})
        job = ExportJob(id=uuid.uuid4(), clinic_id=self.clinic_id, key_id=self.key_id, owner_id=owner_id,
                        granted=sorted(map(str, self.granted)), level=wanted.level,
                        types=list(wanted.types), since=wanted.since, request_url=request_url, base_url=base_url,
                        status="queued", attempt=0, heartbeat_at=now, next_poll_at=now,
                        expires_at=now + datetime.timedelta(hours=self.settings.lifetime_hours))
        self.db.add(job)
        self.db.flush()
        self.enqueue(run_export, str(job.id))
        return job

    def _refuse_past_hourly_cap(self, now):
        """429 once the key has kicked off `exports.max_kickoffs_per_hour` exports in the last hour, in any
        clinic: finished and cancelled ones count (a job's row, and its files, are kept for its lifetime)."""
        since = now - KICKOFF_WINDOW
        count, oldest = self.db.execute(select(func.count(), func.min(ExportJob.created_at)).where(
            ExportJob.key_id == self.key_id, ExportJob.created_at > since)).one()
        limit = self.settings.max_kickoffs_per_hour
        if count >= limit:
            wait = max(1, math.ceil((oldest + KICKOFF_WINDOW - now).total_seconds()))
            raise Problem("too_many_export_kickoffs", f"This key has kicked off {count} exports in the last hour "
                          f"(at most {limit}); retry in {wait} s.", headers={"Retry-After": str(wait)})

    def get(self, job_id):
        job = self.db.get(ExportJob, job_id, populate_existing=True)
        if job is None or job.clinic_id != self.clinic_id or job.key_id != self.key_id or job.status == CANCELLED:
            return None
        if job.expires_at <= self._now():
            return None
        return job

    def poll(self, job):
        if job.status not in RUNNING:
            return Poll(job.status, job.status, 0)
        now = self._now()
        wait = self.settings.retry_after_seconds
        if job.next_poll_at > now:
            early = math.ceil((job.next_poll_at - now).total_seconds())
            raise Problem("export_polled_too_soon", f"Poll this export no sooner than the Retry-After it was given "
                          f"({wait} s); retry in {early} s.", headers={"Retry-After": str(early)})
        job.next_poll_at = now + datetime.timedelta(seconds=wait)
        self.db.flush()
        return Poll(job.status, progress_text(job), wait)

    def files(self, job):
        found = {section: [] for section in SECTIONS}
        for export_file in self.db.scalars(select(ExportFile).where(
                ExportFile.job_id == job.id, ExportFile.attempt == job.attempt)
                .order_by(ExportFile.section, ExportFile.position)):
            found[export_file.section].append(export_file)
        return found

    def cancel(self, job):
        # The row stays (cancelled, found by no one) until it expires: it still counts against the hourly cap.
        self.db.execute(delete(ExportFile).where(ExportFile.job_id == job.id))
        self.db.execute(update(ExportJob).where(ExportJob.id == job.id).values(status=CANCELLED,
                                                                                 finished_at=func.now()))
        self.db.flush()
        storage.remove(storage.job_directory(self.root, self.clinic_id, job.id))

    def get_file(self, file_id):
        export_file = self.db.get(ExportFile, file_id)
        if export_file is None:
            return None
        job = self.get(export_file.job_id)
        if job is None or job.status != "completed" or job.attempt != export_file.attempt:
            return None
        return export_file

    def readable(self, export_file):
        if export_file.permission and export_file.permission not in set(map(str, self.granted)):
            raise Problem("scope_missing", f"The key no longer holds {export_file.permission} in this clinic: the "
                          "file is not served.")
        directory = storage.attempt_directory(self.root, self.clinic_id, export_file.job_id, export_file.attempt)
        path = directory / export_file.name
        if not path.is_file():
            return None
        hidden = hidden_patient_ids(self.db) & set(export_file.patient_ids)
        sensitive = sensitive_encounter_ids(self.db) if export_file.type == "Encounter" else set()
        if not hidden and not sensitive:
            return Download(path, export_file.size, export_file.etag, tuple(export_file.patient_ids), frozenset())
        lines = line_index(path)
        if lines is None:  # written before files had their index: what to leave out cannot be told
            return None
        left_out = frozenset(number for number, line in enumerate(lines)
                             if line.patient_id in hidden or line.record_id in sensitive)
        if not left_out:
            return Download(path, export_file.size, export_file.etag, tuple(export_file.patient_ids), frozenset())
        kept = [line for number, line in enumerate(lines) if number not in left_out]
        served = tuple(sorted({line.patient_id for line in kept if line.patient_id is not None}))
        etag = hashlib.sha256(f"{export_file.etag} {sorted(left_out)}".encode()).hexdigest()
        return Download(path, sum(line.length for line in kept), etag, served, left_out)


def export_service_factory(context, request):
    scope = clinic_scope(context)
    settings = app_settings(request.registry)
    return ExportService(scope.db, scope.clinic.id, scope.identity.key_id, scope.granted, settings.exports,
                         storage.root_of(request.registry), enqueue=request.enqueue)


RESTORED_UNDER_IT = "The clinic's records were restored to an earlier time while this export ran; kick off another."


def fail_unfinished_exports(db, clinic_id):
    """After the clinic's records were restored: its queued and running exports fail (an attempt under way
    would mix records from before and after the restore; its finish finds the job no longer running). Finished
    ones stay: each holds what the clinic had when it was made, as any file already downloaded. How many."""
    return db.execute(update(ExportJob).where(ExportJob.clinic_id == clinic_id, ExportJob.status.in_(RUNNING))
                      .values(status="failed", error=RESTORED_UNDER_IT, finished_at=func.now())).rowcount
