import datetime
import uuid
from decimal import Decimal

from sqlalchemy import CheckConstraint, ForeignKey, Index, Numeric, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class DispensingEnrollment(TenantBase):
    """A patient the clinic enrolled with an outside organization: its keys see that patient's flags."""

    __tablename__ = "dispensing_enrollments"

    workspace_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"), primary_key=True, index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class Dispensing(TenantBase):
    """One dispensing and the refill/duplicate check made on it.

    price, pharmacist_id and pharmacist_name belong to the pharmacy alone: no representation reads them.
    """

    __tablename__ = "dispensings"
    __table_args__ = (
        CheckConstraint("check_state IN ('clear', 'flagged', 'overridden')", name="check_state"),
        CheckConstraint("days_supply > 0", name="days_supply"),
        Index("ix_dispensings_dispensed_at_id", "dispensed_at", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"), index=True)
    medicine_name: Mapped[str] = mapped_column(String(200))
    generic_name: Mapped[str | None] = mapped_column(String(200))
    brand_name: Mapped[str | None] = mapped_column(String(200))
    identifiers: Mapped[list] = mapped_column(default=list)
    days_supply: Mapped[int] = mapped_column()
    dispensed_at: Mapped[datetime.datetime] = mapped_column()
    check_state: Mapped[str] = mapped_column(String(20))
    flags: Mapped[list] = mapped_column(default=list)
    evidence: Mapped[dict] = mapped_column(default=dict)
    reason_code: Mapped[str | None] = mapped_column(String(30))
    reason_text: Mapped[str | None] = mapped_column(String(500))
    price: Mapped[Decimal | None] = mapped_column(Numeric(18, 4))
    pharmacist_id: Mapped[uuid.UUID | None] = mapped_column()
    pharmacist_name: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
