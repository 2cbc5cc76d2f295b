import datetime
import uuid

from sqlalchemy import ForeignKey, Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class Encounter(TenantBase):
    """A visit. The API sees its frame (class, period, reason, clinician), never its clinical text or billing."""

    __tablename__ = "encounters"
    __table_args__ = (Index("ix_encounters_created_at_id", "created_at", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"), index=True)
    provider_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("providers.id"))
    status: Mapped[str] = mapped_column(String(20), default="draft")
    encounter_class: Mapped[str] = mapped_column(String(20))
    type: Mapped[str | None] = mapped_column(String(100))
    reason: Mapped[str | None] = mapped_column(String(500))
    start_at: Mapped[datetime.datetime] = mapped_column()
    end_at: Mapped[datetime.datetime | None] = mapped_column()
    # The key owner (workspace or clinic) whose app opened the draft; null when the clinic opened it.
    opened_by_owner_id: Mapped[uuid.UUID | None] = mapped_column()
    touched_at: Mapped[datetime.datetime | None] = mapped_column()
    signed_at: Mapped[datetime.datetime | None] = mapped_column()
    sensitive: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now(),
                                                          index=True)
