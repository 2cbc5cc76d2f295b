import datetime
import uuid

from sqlalchemy import Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class Patient(TenantBase):
    __tablename__ = "patients"
    __table_args__ = (Index("ix_patients_created_at_id", "created_at", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    given_name: Mapped[str] = mapped_column(String(100))
    family_name: Mapped[str] = mapped_column(String(100))
    birth_date: Mapped[datetime.date | None] = mapped_column()
    sex: Mapped[str | None] = mapped_column(String(10))
    phone: Mapped[str | None] = mapped_column(String(40))
    email: Mapped[str | None] = mapped_column(String(254))
    address: Mapped[dict | None] = mapped_column()
    external_id: Mapped[str | None] = mapped_column(String(64))
    # A restricted patient is hidden from every API key, with all their records
    # (docs/decisions/0012-clinical-items-review-queue.md, "Restricted patients").
    restricted: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now(),
                                                          index=True)
