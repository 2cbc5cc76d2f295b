import datetime
import uuid

from sqlalchemy import Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class Provider(TenantBase):
    """One of the clinic's own clinicians. Contact details and the clinic's verification are not kept here."""

    __tablename__ = "providers"
    __table_args__ = (Index("ix_providers_created_at_id", "created_at", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    given_name: Mapped[str] = mapped_column(String(100))
    family_name: Mapped[str] = mapped_column(String(100))
    role: Mapped[str] = mapped_column(String(40))
    specialties: Mapped[list] = mapped_column(default=list)
    npi: Mapped[str | None] = mapped_column(String(10))
    # [{jurisdiction, number, expires_on}]
    licences: Mapped[list] = mapped_column(default=list)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now(),
                                                          index=True)
