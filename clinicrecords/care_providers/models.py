import datetime
import uuid

from sqlalchemy import ForeignKey, Index, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class CareProvider(TenantBase):
    """An outside clinician a patient names. `clinic_notes` are the clinic's own and never leave it."""

    __tablename__ = "care_providers"
    __table_args__ = (Index("ix_care_providers_created_at_id", "created_at", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"), index=True)
    type: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(200))
    is_primary: Mapped[bool] = mapped_column(default=False)
    # clinic (recorded by staff, including from an intake form) or api (added by an app)
    source: Mapped[str] = mapped_column(String(10))
    # The key owner (workspace or clinic) whose app added it; null for clinic-recorded contacts.
    added_by_owner_id: Mapped[uuid.UUID | None] = mapped_column()
    practice_name: Mapped[str | None] = mapped_column(String(200))
    specialty: Mapped[str | None] = mapped_column(String(100))
    npi: Mapped[str | None] = mapped_column(String(10))
    phone: Mapped[str | None] = mapped_column(String(40))
    fax: Mapped[str | None] = mapped_column(String(40))
    address: Mapped[str | None] = mapped_column(String(500))
    origin_assistant_name: Mapped[str | None] = mapped_column(String(100))
    clinic_notes: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now(),
                                                          index=True)


class CareProviderDeletion(TenantBase):
    """A contact removed by the app that added it: what a bulk export since then names as deleted (nothing about
    the contact is kept but its id and its patient)."""

    __tablename__ = "care_provider_deletions"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    patient_id: Mapped[uuid.UUID] = mapped_column()
    deleted_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)
