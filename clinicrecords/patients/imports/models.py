import datetime
import uuid

from sqlalchemy import ForeignKey, Integer, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase, TenantBase


class PatientImport(TenantBase):
    """A patient import job. `rows` holds the validated rows still to write; it is emptied when the job ends."""

    __tablename__ = "patient_imports"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    status: Mapped[str] = mapped_column(String(20))
    input_format: Mapped[str] = mapped_column(String(20))
    row_count: Mapped[int] = mapped_column()
    # The number of the last row written (rows are numbered from 1); the writer resumes after it.
    last_processed_row: Mapped[int] = mapped_column(default=0)
    counts: Mapped[dict] = mapped_column()
    row_errors: Mapped[list] = mapped_column()
    rows: Mapped[list] = mapped_column()
    content_hash: Mapped[str] = mapped_column(String(64), index=True)
    started_by: Mapped[str] = mapped_column(String(20), default="key")
    started_by_key_id: Mapped[str | None] = mapped_column(String(32))
    valid_only_run_at: Mapped[datetime.datetime | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now())


class PatientImportRow(TenantBase):
    """One written row, committed with its patient: the ledger that makes a resumed job skip what is done."""

    __tablename__ = "patient_import_rows"

    import_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patient_imports.id"), primary_key=True)
    row: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    row_hash: Mapped[str] = mapped_column(String(64), index=True)
    # created, flagged_duplicate (created, for staff review) or skipped_already_imported (no patient)
    outcome: Mapped[str] = mapped_column(String(30))
    patient_id: Mapped[uuid.UUID | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class PatientImportRun(ControlBase):
    """An import being written, in any clinic: what a restarted worker resumes. Deleted when the job ends."""

    __tablename__ = "patient_import_runs"

    import_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), index=True)
    resumes: Mapped[int] = mapped_column(default=0)
    heartbeat_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
