"""Bulk Data export jobs and the files each finished attempt wrote.

Both live in the control schema: the sweeps that restart interrupted attempts and remove expired exports read
one indexed table, whatever the number of clinics, and no tenant migration is needed. A row names records
only by id (the patients a file holds, for the download's audit trail); the content is in the files.
"""

import datetime
import uuid

from sqlalchemy import ForeignKey, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class ExportJob(ControlBase):
    """One $export kick-off. `attempt` counts the attempts started; files are those of the current one.

    Statuses: queued (waiting for a worker), running, completed, failed, cancelled (its files removed, found by
    no one; the row stays until it expires, counted against the key's kick-offs per hour).
    """

    __tablename__ = "export_jobs"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), index=True)
    key_id: Mapped[str] = mapped_column(String(32))
    # The key's owner and the read permissions it held here at kick-off: an attempt writes what they allow.
    owner_id: Mapped[uuid.UUID | None] = mapped_column()
    granted: Mapped[list] = mapped_column()
    level: Mapped[str] = mapped_column(String(20))  # "system" ($export) or "patient" (Patient/$export)
    types: Mapped[list] = mapped_column()
    since: Mapped[datetime.datetime | None] = mapped_column()
    request_url: Mapped[str] = mapped_column(Text)
    base_url: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20))
    attempt: Mapped[int] = mapped_column(default=0)
    # When the current attempt started, or the job was queued or last handed to a worker: the sweep restarts
    # what has not moved for `exports.stale_after_seconds`.
    heartbeat_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    transaction_time: Mapped[datetime.datetime | None] = mapped_column()
    error: Mapped[str | None] = mapped_column(Text)
    next_poll_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    finished_at: Mapped[datetime.datetime | None] = mapped_column()
    expires_at: Mapped[datetime.datetime] = mapped_column(index=True)


class ExportFile(ControlBase):
    """One NDJSON file of a job's finished attempt: `section` is output, error or deleted."""

    __tablename__ = "export_files"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    job_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("export_jobs.id", ondelete="CASCADE"), index=True)
    attempt: Mapped[int] = mapped_column()
    section: Mapped[str] = mapped_column(String(10))
    position: Mapped[int] = mapped_column()  # the file's place in its section of the manifest
    type: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    count: Mapped[int] = mapped_column()
    size: Mapped[int] = mapped_column()
    etag: Mapped[str] = mapped_column(String(128))
    permission: Mapped[str] = mapped_column(String(64))  # the read permission a download needs ("": none)
    patient_ids: Mapped[list] = mapped_column()
