import datetime
import uuid

from sqlalchemy import (ARRAY, BigInteger, CheckConstraint, ForeignKey, Index, LargeBinary, String, UniqueConstraint,
                        func, text, true)
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase

PLANS = ("sandbox", "paid")
MODES = ("live", "test")


class Workspace(ControlBase):
    """An outside organization's workspace in the developer portal."""

    __tablename__ = "workspaces"
    __table_args__ = (CheckConstraint("plan IN ('sandbox', 'paid')", name="plan"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(200))
    verified: Mapped[bool] = mapped_column(default=False)
    plan: Mapped[str] = mapped_column(String(20), default="sandbox")
    sandbox_clinic_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clinics.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    # Closed by an owner (decision 0094): the row stays so the audit trail and usage exports still name it.
    closed_at: Mapped[datetime.datetime | None] = mapped_column()
    closed_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"))


class ApiKey(ControlBase):
    """A bearer key. Only a keyed hash of its secret is stored; `key_id` is public and cannot authenticate."""

    __tablename__ = "api_keys"
    __table_args__ = (
        CheckConstraint("mode IN ('live', 'test')", name="mode"),
        CheckConstraint("(clinic_id IS NULL) <> (workspace_id IS NULL)", name="one_owner"),
        CheckConstraint("clinic_id IS NULL OR mode = 'live'", name="clinic_keys_live"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    key_id: Mapped[str] = mapped_column(String(32), unique=True)
    # What its owner calls it (optional, not unique); a key without one is shown by its masked id.
    name: Mapped[str | None] = mapped_column(String(100))
    mode: Mapped[str] = mapped_column(String(4))
    clinic_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clinics.id"), index=True)
    workspace_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("workspaces.id"), index=True)
    secret_hash: Mapped[bytes] = mapped_column(LargeBinary(32))
    # Null means every permission the owner can grant; a list narrows the key.
    scopes: Mapped[list[str] | None] = mapped_column(ARRAY(String(64)))
    ip_allow: Mapped[list[str] | None] = mapped_column(ARRAY(String(64)))
    rate_limit: Mapped[int | None] = mapped_column()
    expires_at: Mapped[datetime.datetime | None] = mapped_column()
    revoked_at: Mapped[datetime.datetime | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    last_used_at: Mapped[datetime.datetime | None] = mapped_column()
    last_used_address: Mapped[str | None] = mapped_column(String(64))
    # A rolled key names the key it replaced (the old one keeps working until its overlap ends).
    rolled_from_id: Mapped[uuid.UUID | None] = mapped_column()


class Connection(ControlBase):
    """A clinic's approval of a workspace, with the permissions it granted."""

    __tablename__ = "connections"
    __table_args__ = (
        UniqueConstraint("workspace_id", "clinic_id"),
        # GET /v1/connections: a workspace's connections, keyset-paged oldest first.
        Index("ix_connections_workspace_connected_clinic", "workspace_id", "connected_at", "clinic_id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"))
    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), index=True)
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String(64)))
    connected_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime.datetime | None] = mapped_column()
    revoked_at: Mapped[datetime.datetime | None] = mapped_column()


class RateLimitCounter(ControlBase):
    """One row per key: the current minute's window and its count (the PostgreSQL rate-limit store)."""

    __tablename__ = "rate_limit_counters"

    # No foreign keys on the counters: they are written on every request, outside its transaction.
    api_key_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    window_start: Mapped[datetime.datetime] = mapped_column()
    count: Mapped[int] = mapped_column()


class WorkspaceUsage(ControlBase):
    """Requests per workspace, per calendar month (UTC) and per mode, for operators and billing."""

    __tablename__ = "workspace_usage"
    __table_args__ = (CheckConstraint("mode IN ('live', 'test')", name="mode"),)

    workspace_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    month: Mapped[datetime.date] = mapped_column(primary_key=True)
    mode: Mapped[str] = mapped_column(String(4), primary_key=True)
    requests: Mapped[int] = mapped_column(BigInteger)


class WorkspaceDailyUsage(ControlBase):
    """Requests per workspace, per UTC day and per mode: the portal's usage chart. Counted in the same
    statement as the monthly counter."""

    __tablename__ = "workspace_usage_daily"
    __table_args__ = (CheckConstraint("mode IN ('live', 'test')", name="mode"),)

    workspace_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    day: Mapped[datetime.date] = mapped_column(primary_key=True)
    mode: Mapped[str] = mapped_column(String(4), primary_key=True)
    requests: Mapped[int] = mapped_column(BigInteger)


class ReachVersion(ControlBase):
    """One row: a counter the triggers of revision c22_reach_version increment on every change to api keys,
    workspaces, connections and clinics. A cached key is used only while this is the version it was read with
    (clinicrecords.access.keycache)."""

    __tablename__ = "reach_version"
    __table_args__ = (CheckConstraint("id", name="one_row"),)

    id: Mapped[bool] = mapped_column(primary_key=True, server_default=true())
    version: Mapped[int] = mapped_column(BigInteger, server_default=text("1"))
