"""Chart items that outside software can propose: allergies, conditions, reported medicines, referrals.

Every item carries how it reached the chart (`accepted_by`: automatic, clinic, or null for what the clinic
recorded itself) and the review of an automatically accepted item (`reviewed_at`, `reviewed_by_staff_id`).
"""

import datetime
import uuid

from sqlalchemy import Date, Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class ChartItem:
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    patient_id: Mapped[uuid.UUID] = mapped_column(index=True)
    verification_status: Mapped[str] = mapped_column(String(20), default="confirmed")
    accepted_by: Mapped[str | None] = mapped_column(String(10))
    reviewed_at: Mapped[datetime.datetime | None] = mapped_column()
    reviewed_by_staff_id: Mapped[uuid.UUID | None] = mapped_column()
    source_submission_id: Mapped[uuid.UUID | None] = mapped_column()
    origin_assistant_name: Mapped[str | None] = mapped_column(String(200))
    note: Mapped[str | None] = mapped_column(String(2000))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now())


class Allergy(ChartItem, TenantBase):
    """`entry`: recorded (a coded or named allergy), no_known_allergies (the explicit statement), or
    legacy_text (a name from the clinic's plain allergy list: read-only, shown without an id)."""

    __tablename__ = "allergies"
    # Lists are keyset-paged on (created_at, id) (clinicrecords.api.pagination).
    __table_args__ = (Index("ix_allergies_updated_at", "updated_at"),
                      Index("ix_allergies_created_at_id", "created_at", "id"))

    entry: Mapped[str] = mapped_column(String(20), default="recorded")
    substance_text: Mapped[str | None] = mapped_column(String(200))
    substance_rxnorm: Mapped[str | None] = mapped_column(String(20))
    clinical_status: Mapped[str] = mapped_column(String(20), default="active")
    category: Mapped[list] = mapped_column(default=list)
    criticality: Mapped[str | None] = mapped_column(String(20))
    type: Mapped[str | None] = mapped_column(String(20))
    reactions: Mapped[list] = mapped_column(default=list)
    onset_date: Mapped[datetime.date | None] = mapped_column(Date)


class Condition(ChartItem, TenantBase):
    __tablename__ = "conditions"
    # Lists are keyset-paged on (created_at, id) (clinicrecords.api.pagination).
    __table_args__ = (Index("ix_conditions_updated_at", "updated_at"),
                      Index("ix_conditions_created_at_id", "created_at", "id"))

    icd10_code: Mapped[str] = mapped_column(String(10))
    display: Mapped[str] = mapped_column(String(200))
    clinical_status: Mapped[str] = mapped_column(String(20), default="active")
    onset_date: Mapped[datetime.date | None] = mapped_column(Date)
    abatement_date: Mapped[datetime.date | None] = mapped_column(Date)


class MedicationStatement(ChartItem, TenantBase):
    """A medicine the patient reports taking. Never the clinic's current medication list."""

    __tablename__ = "medication_statements"
    # Lists are keyset-paged on (created_at, id) (clinicrecords.api.pagination).
    __table_args__ = (Index("ix_medication_statements_updated_at", "updated_at"),
                      Index("ix_medication_statements_created_at_id", "created_at", "id"))

    medication_text: Mapped[str] = mapped_column(String(200))
    medication_rxnorm: Mapped[str | None] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="active")
    dosage_text: Mapped[str | None] = mapped_column(String(200))
    effective_start: Mapped[datetime.date | None] = mapped_column(Date)
    effective_end: Mapped[datetime.date | None] = mapped_column(Date)


class Referral(ChartItem, TenantBase):
    """A referral into the clinic. `sender_owner_id` (the sending workspace or clinic) alone sees
    `status_reason`, the reason the clinic gave for declining or cancelling."""

    __tablename__ = "referrals"
    # Lists are keyset-paged on (created_at, id) (clinicrecords.api.pagination).
    __table_args__ = (Index("ix_referrals_updated_at", "updated_at"),
                      Index("ix_referrals_created_at_id", "created_at", "id"))

    status: Mapped[str] = mapped_column(String(20), default="received")
    status_reason: Mapped[str | None] = mapped_column(String(2000))
    reason_code: Mapped[str] = mapped_column(String(10))
    reason_text: Mapped[str | None] = mapped_column(String(200))
    specialty: Mapped[str] = mapped_column(String(200))
    priority: Mapped[str] = mapped_column(String(10), default="routine")
    sender_owner_id: Mapped[uuid.UUID | None] = mapped_column()
    acted_at: Mapped[datetime.datetime | None] = mapped_column()
