"""A clinic's Bulk Data export jobs, as the calling key sees them: kick-off, polling, cancel, files.

The job is a row (control.export_jobs); a Huey task writes each attempt (clinicrecords.exports.tasks).
"""

import datetime
import math
import uuid
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from zope.interface import implementer

from clinicrecords.api.problems import Problem
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.db import locks
from clinicrecords.exports import storage
from clinicrecords.exports.interfaces import IExportService
from clinicrecords.exports.models import ExportFile, ExportJob
from clinicrecords.settings import app_settings

RUNNING = ("queued", "running")
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

        # Two kick-offs of one key in one clinic queue here, so both cannot pass the count below.
        locks.hold(self.db, "export", self.clinic_id, self.key_id)
        running = self.db.scalar(select(func.count()).select_from(ExportJob).where(
            ExportJob.clinic_id == self.clinic_id, ExportJob.key_id == self.key_id, ExportJob.status.in_(RUNNING)))
        if running >= self.settings.max_running_per_key:
            raise Problem("too_many_exports", f"This key already has {running} exports queued or running in this "
                          f"clinic (at most {self.settings.max_running_per_key}); retry when one has finished, "
                          "or cancel one.", headers={"Retry-After": str(max(1, self.settings.retry_after_seconds))})
        now = self._now()
        job = ExportJob(id=uuid.uuid4(), clinic_id=self.clinic_id, key_id=self.key_id, owner_id=owner_id,
                        granted=sorted(map(str, self.granted)), level=wanted.level,
                        types=list(wanted.types), since=wanted.since, request_url=request_url, base_url=base_url,
                        status="queued", attempt=0, heartbeat_at=now, next_poll_at=now,
                        expires_at=now + datetime.timedelta(hours=self.settings.lifetime_hours))
        self.db.add(job)
        self.db.flush()
        self.enqueue(run_export, str(job.id))
        return job

    def get(self, job_id):
        job = self.db.get(ExportJob, job_id, populate_existing=True)
        if job is None or job.clinic_id != self.clinic_id or job.key_id != self.key_id:
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
        self.db.execute(delete(ExportJob).where(ExportJob.id == job.id))
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

    def readable_path(self, export_file):
        if export_file.permission and export_file.permission not in set(map(str, self.granted)):
            raise Problem("scope_missing", f"The key no longer holds {export_file.permission} in this clinic: the "
                          "file is not served.")
        directory = storage.attempt_directory(self.root, self.clinic_id, export_file.job_id, export_file.attempt)
        path = directory / export_file.name
        return path if path.is_file() else None


def export_service_factory(context, request):
    scope = clinic_scope(context)
    settings = app_settings(request.registry)
    return ExportService(scope.db, scope.clinic.id, scope.identity.key_id, scope.granted, settings.exports,
                         storage.root_of(request.registry), enqueue=request.enqueue)
