import datetime
import uuid

from sqlalchemy import CheckConstraint, ForeignKey, LargeBinary, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase

ROLES = ("owner", "developer")


class Member(ControlBase):
    """An account's membership of a workspace. Owners invite members and choose the plan; every member works
    with keys."""

    __tablename__ = "workspace_members"
    __table_args__ = (CheckConstraint("role IN ('owner', 'developer')", name="role"),)

    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), primary_key=True)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("portal_accounts.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class Invitation(ControlBase):
    """An invitation by email link. Only a hash of the link's token is stored; it works once, for 7 days, for
    the account with that email."""

    __tablename__ = "workspace_invitations"
    __table_args__ = (CheckConstraint("role IN ('owner', 'developer')", name="role"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), index=True)
    email: Mapped[str] = mapped_column(String(254))
    role: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    invited_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("portal_accounts.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime.datetime] = mapped_column()
    accepted_at: Mapped[datetime.datetime | None] = mapped_column()
