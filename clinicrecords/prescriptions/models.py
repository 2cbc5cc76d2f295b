import datetime
import uuid

from sqlalchemy import ForeignKey, Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class Prescription(TenantBase):
    """A prescription the clinic wrote. Read-only through the API: only drug, dose, frequency, status, dates."""

    __tablename__ = "prescriptions"
    __table_args__ = (Index("ix_prescriptions_created_at_id", "created_at", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"), index=True)
    drug: Mapped[str] = mapped_column(String(200))
    dose: Mapped[str] = mapped_column(String(100))
    frequency: Mapped[str] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(20))
    # eprescribe (sent electronically) or clinic (written on paper or recorded by staff)
    source: Mapped[str] = mapped_column(String(20))
    written_on: Mapped[datetime.date] = mapped_column()
    start_date: Mapped[datetime.date | None] = mapped_column()
    end_date: Mapped[datetime.date | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now(),
                                                          index=True)
