import datetime
import uuid

from sqlalchemy import CheckConstraint, ForeignKey, Index, SmallInteger, String, UniqueConstraint, func, text
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class WorkingHours(TenantBase):
    """One clinician's hours on one weekday (0 Monday .. 6 Sunday), in the clinic's local time."""

    __tablename__ = "working_hours"
    __table_args__ = (
        UniqueConstraint("provider_id", "weekday"),
        CheckConstraint("weekday BETWEEN 0 AND 6", name="weekday"),
        CheckConstraint("start_time < end_time", name="start_before_end"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    weekday: Mapped[int] = mapped_column(SmallInteger)
    start_time: Mapped[datetime.time] = mapped_column()
    end_time: Mapped[datetime.time] = mapped_column()


class CalendarBlock(TenantBase):
    """Time a clinician is away (holiday, training): nobody books it."""

    __tablename__ = "calendar_blocks"
    __table_args__ = (CheckConstraint("starts_at < ends_at", name="starts_before_ends"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"), index=True)
    starts_at: Mapped[datetime.datetime] = mapped_column()
    ends_at: Mapped[datetime.datetime] = mapped_column()
    reason: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class Appointment(TenantBase):
    """One booked (or cancelled) slot. Slots have a fixed length and aligned starts, so one booked row per
    clinician and start is the whole double-booking rule: the partial unique index enforces it, also
    between concurrent transactions."""

    __tablename__ = "appointments"
    __table_args__ = (
        Index("uq_appointments_booked_slot", "provider_id", "starts_at", unique=True,
              postgresql_where=text("status = 'booked'")),
        CheckConstraint("status IN ('booked', 'cancelled')", name="status"),
        Index("ix_appointments_updated_at", "updated_at"),
        Index("ix_appointments_starts_at_id", "starts_at", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"), index=True)
    provider_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("providers.id"))
    starts_at: Mapped[datetime.datetime] = mapped_column()
    ends_at: Mapped[datetime.datetime] = mapped_column()
    status: Mapped[str] = mapped_column(String(20), default="booked")
    referral_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("referrals.id"))
    reason: Mapped[str | None] = mapped_column(String(500))
    # The key owner (workspace or clinic) whose app booked it; null when clinic staff booked it.
    booked_by_owner_id: Mapped[uuid.UUID | None] = mapped_column()
    cancelled_at: Mapped[datetime.datetime | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now())
