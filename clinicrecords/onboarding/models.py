import datetime
import uuid

from sqlalchemy import CheckConstraint, ForeignKey, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class WorkspaceDomain(ControlBase):
    """The domain a workspace claims, its TXT value and where its checks stand (docs/verification.md)."""

    __tablename__ = "workspace_domains"
    __table_args__ = (CheckConstraint("state IN ('pending', 'verified', 'lapsed')", name="state"),)

    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), primary_key=True)
    domain: Mapped[str] = mapped_column(String(253))
    txt_value: Mapped[str] = mapped_column(String(100))
    state: Mapped[str] = mapped_column(String(10))
    # Where the pending schedule's grid starts: the domain set, "Check now", or the lapse.
    schedule_started_at: Mapped[datetime.datetime] = mapped_column()
    # Null: automatic checks are paused until the owner asks for one.
    next_check_at: Mapped[datetime.datetime | None] = mapped_column(index=True)
    last_check_at: Mapped[datetime.datetime | None] = mapped_column()
    last_result: Mapped[str | None] = mapped_column(String(20))
    # Scheduled daily checks in a row that found a verified domain's record absent.
    absent_checks: Mapped[int] = mapped_column(default=0)
    verified_at: Mapped[datetime.datetime | None] = mapped_column()
    lapsed_at: Mapped[datetime.datetime | None] = mapped_column()
    lapse_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    # When the check running now began (its claim); None: no check is running. A claim older than the
    # lookup's timeout and a margin is abandoned (its process died) and may be taken over.
    check_started_at: Mapped[datetime.datetime | None] = mapped_column()


class BusinessProfile(ControlBase):
    """What a workspace's organization tells us about itself, and the operator's review of it."""

    __tablename__ = "business_profiles"
    __table_args__ = (CheckConstraint("status IN ('submitted', 'approved', 'rejected')", name="status"),)

    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), primary_key=True)
    legal_name: Mapped[str] = mapped_column(String(200))
    website: Mapped[str] = mapped_column(String(2048))
    country: Mapped[str] = mapped_column(String(2))
    contact_email: Mapped[str] = mapped_column(String(254))
    intended_use: Mapped[str] = mapped_column(String(2000))
    status: Mapped[str] = mapped_column(String(10))
    submitted_at: Mapped[datetime.datetime] = mapped_column()
    reviewed_at: Mapped[datetime.datetime | None] = mapped_column()
    review_reason: Mapped[str | None] = mapped_column(Text)
