import datetime
import uuid

from sqlalchemy import Index, String, UniqueConstraint, func, text
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class Submission(TenantBase):
    """One outside record in the clinic's review queue (spec: Submission)."""

    __tablename__ = "submissions"
    __table_args__ = (
        # A client_reference names one submission per sender (workspace, or the clinic's own keys).
        Index("uq_submissions_sender_reference", "sender_owner_id", "client_reference", unique=True,
              postgresql_where=text("client_reference IS NOT NULL")),
        # A sender's list: always filtered by sender, keyset-paged on (submitted_at, id).
        Index("ix_submissions_sender_submitted_id", "sender_owner_id", "submitted_at", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    patient_id: Mapped[uuid.UUID] = mapped_column(index=True)
    resource_type: Mapped[str] = mapped_column(String(30))
    action: Mapped[str] = mapped_column(String(30))
    review_status: Mapped[str] = mapped_column(String(10), default="pending", index=True)
    target_id: Mapped[uuid.UUID] = mapped_column()
    accepted_automatically: Mapped[bool] = mapped_column(default=False)
    source: Mapped[str] = mapped_column(String(10), default="api")
    submitted_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    decided_at: Mapped[datetime.datetime | None] = mapped_column()
    decision_reason: Mapped[str | None] = mapped_column(String(2000))
    decided_by_staff_id: Mapped[uuid.UUID | None] = mapped_column()
    result_record_id: Mapped[uuid.UUID | None] = mapped_column()
    client_reference: Mapped[str | None] = mapped_column(String(200))
    origin_assistant_name: Mapped[str | None] = mapped_column(String(200))
    payload: Mapped[dict] = mapped_column()
    content_hash: Mapped[str] = mapped_column(String(64))
    # Who sent it: the key (control.api_keys.id), its workspace (null for a clinic's own key), and the owner
    # (workspace or clinic) whose "own submissions" these are. No foreign keys to the control schema.
    api_key_id: Mapped[uuid.UUID] = mapped_column()
    workspace_id: Mapped[uuid.UUID | None] = mapped_column()
    sender_owner_id: Mapped[uuid.UUID] = mapped_column()


class AutoAcceptSetting(TenantBase):
    """Automatic acceptance for one sender (a key, or a workspace's connection) and one kind; off by default.

    A workspace setting, and the setting of a workspace's key, holds the `connected_at` of the connection it
    was switched on for (null for a clinic's own key and on a sandbox): a new connection (revoked or expired,
    then approved again) has another `connected_at`, so it starts with automatic acceptance off. A workspace
    setting also holds when it was last switched on (`switched_on_at`): it applies only to the workspace's keys that
    existed then, so a new or rolled key starts with automatic acceptance off too.
    """

    __tablename__ = "auto_accept_settings"
    __table_args__ = (UniqueConstraint("sender_id", "kind"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    sender_type: Mapped[str] = mapped_column(String(10))  # key | workspace
    sender_id: Mapped[uuid.UUID] = mapped_column()  # control.api_keys.id or control.workspaces.id
    kind: Mapped[str] = mapped_column(String(30))
    enabled: Mapped[bool] = mapped_column(default=False)
    connected_at: Mapped[datetime.datetime | None] = mapped_column()
    switched_on_at: Mapped[datetime.datetime | None] = mapped_column()
    paused_at: Mapped[datetime.datetime | None] = mapped_column()
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now())


class AutoAcceptPause(TenantBase):
    """When automatic acceptance paused on unusual volume, for operators (`auto-accept show`)."""

    __tablename__ = "auto_accept_pauses"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    sender_type: Mapped[str] = mapped_column(String(10))
    sender_id: Mapped[uuid.UUID] = mapped_column(index=True)
    kind: Mapped[str] = mapped_column(String(30))
    paused_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    accepted_in_window: Mapped[int] = mapped_column()
    threshold: Mapped[int] = mapped_column()
    window_minutes: Mapped[int] = mapped_column()
    submission_id: Mapped[uuid.UUID] = mapped_column()
    resumed_at: Mapped[datetime.datetime | None] = mapped_column()
