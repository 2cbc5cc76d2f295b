import datetime
import uuid
from decimal import Decimal

from sqlalchemy import CheckConstraint, ForeignKey, Index, Numeric, String, UniqueConstraint, func
from sqlalchemy.orm import Mapped, mapped_column, relationship

from clinicrecords.db.meta import TenantBase

MONEY = Numeric(18, 4)


class Payer(TenantBase):
    """A payer in the clinic's directory. Only enabled payers are listed or accepted on coverages."""

    __tablename__ = "payers"
    __table_args__ = (Index("ix_payers_search_name_id", "search_name", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    display_name: Mapped[str] = mapped_column(String(200))
    # display_name folded (accents stripped, case folded) in Python: `q` matches it with ILIKE, so no
    # superuser-only extension such as unaccent is needed.
    search_name: Mapped[str] = mapped_column(String(400))
    primary_payer_id: Mapped[str] = mapped_column(String(64))
    coverage_types: Mapped[list] = mapped_column(default=list)
    operating_states: Mapped[list] = mapped_column(default=list)
    enabled: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class Coverage(TenantBase):
    __tablename__ = "coverages"
    __table_args__ = (
        UniqueConstraint("patient_id", "payer_id"),
        CheckConstraint("confirmation_status IN ('unconfirmed', 'confirmed')", name="confirmation_status"),
        CheckConstraint("NOT coverage_active OR confirmation_status = 'confirmed'", name="active_confirmed"),
        Index("ix_coverages_created_at_id", "created_at", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    # No index of its own: the unique constraint's (patient_id, payer_id) serves a patient's lookups.
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"))
    payer_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("payers.id"))
    member_id: Mapped[str] = mapped_column(String(64))
    group_number: Mapped[str | None] = mapped_column(String(64))
    subscriber_relationship: Mapped[str] = mapped_column(String(20), default="self")
    subscriber_name: Mapped[str | None] = mapped_column(String(200))
    subscriber_birth_date: Mapped[datetime.date | None] = mapped_column()
    period_start: Mapped[datetime.date | None] = mapped_column()
    period_end: Mapped[datetime.date | None] = mapped_column()
    confirmation_status: Mapped[str] = mapped_column(String(20), default="unconfirmed")
    coverage_active: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now(),
                                                          index=True)


class InsurerLink(TenantBase):
    """The insurer (a payer of this clinic) the clinic linked to an outside organization's workspace."""

    __tablename__ = "insurer_links"

    workspace_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    payer_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("payers.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class Claim(TenantBase):
    __tablename__ = "claims"
    __table_args__ = (
        CheckConstraint("status IN ('awaiting_payment', 'paid')", name="status"),
        CheckConstraint("outstanding >= 0 AND outstanding <= amount", name="outstanding"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    insurer_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("payers.id"), index=True)
    patient_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("patients.id"))
    amount: Mapped[Decimal] = mapped_column(MONEY)
    # What the claim still owes; changed only by staff recording a payment, never by a payment advice.
    outstanding: Mapped[Decimal] = mapped_column(MONEY)
    status: Mapped[str] = mapped_column(String(20), default="awaiting_payment")
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class PaymentAdvice(TenantBase):
    __tablename__ = "payment_advices"
    __table_args__ = (
        CheckConstraint("status IN ('advised', 'recorded', 'declined')", name="status"),
        CheckConstraint("amount > 0", name="amount_positive"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    insurance_company_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("payers.id"), index=True)
    # The workspace that sent it (the organization the insurer is linked to).
    workspace_id: Mapped[uuid.UUID] = mapped_column()
    paid_on: Mapped[datetime.date] = mapped_column()
    amount: Mapped[Decimal] = mapped_column(MONEY)
    currency: Mapped[str] = mapped_column(String(10))
    method: Mapped[str] = mapped_column(String(20))
    reference: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), default="advised")
    decline_reason: Mapped[str | None] = mapped_column(String(500))
    decided_at: Mapped[datetime.datetime | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())

    allocations: Mapped[list["PaymentAdviceAllocation"]] = relationship(
        order_by="PaymentAdviceAllocation.position", lazy="selectin", cascade="all, delete-orphan")


class PaymentAdviceAllocation(TenantBase):
    __tablename__ = "payment_advice_allocations"
    __table_args__ = (CheckConstraint("amount > 0", name="amount_positive"),)

    advice_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("payment_advices.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    claim_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("claims.id"), index=True)
    amount: Mapped[Decimal] = mapped_column(MONEY)
