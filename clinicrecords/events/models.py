import datetime
import uuid

from sqlalchemy import (ARRAY, BigInteger, CheckConstraint, ForeignKey, Index, SmallInteger, String, Text,
                        false, func)
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase, TenantBase


class Event(TenantBase):
    """The clinic's outbox and change feed: written in the transaction of the change that caused it."""

    __tablename__ = "events"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    seq: Mapped[int] = mapped_column(BigInteger, unique=True)
    type: Mapped[str] = mapped_column(String(64), index=True)
    clinic_id: Mapped[uuid.UUID] = mapped_column()
    subject_id: Mapped[uuid.UUID] = mapped_column()
    data: Mapped[dict] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)
    # Never shown. The owner (workspace or clinic) an addressed event is for (submission.decided,
    # patient_import.finished), and the owner whose write caused the event (the echo rule, docs/events.md).
    audience_id: Mapped[uuid.UUID | None] = mapped_column()
    origin_id: Mapped[uuid.UUID | None] = mapped_column()


class EventCounter(TenantBase):
    """One row: the last seq handed out. Taking the next value locks the row until commit, so events of
    one clinic commit in seq order and a reader that saw seq N never later finds a new event at or below N."""

    __tablename__ = "event_counter"

    id: Mapped[int] = mapped_column(SmallInteger, primary_key=True, default=1)
    value: Mapped[int] = mapped_column(BigInteger, default=0)


class WebhookEndpoint(ControlBase):
    """An address that receives signed events: a workspace's (per mode, spanning its clinics) or a clinic's."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (
        CheckConstraint("mode IN ('live', 'test')", name="mode"),
        CheckConstraint("(clinic_id IS NULL) <> (workspace_id IS NULL)", name="one_owner"),
        CheckConstraint("clinic_id IS NULL OR mode = 'live'", name="clinic_endpoints_live"),
        Index("ix_webhook_endpoints_workspace_mode", "workspace_id", "mode"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    workspace_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("workspaces.id"))
    clinic_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clinics.id"), index=True)
    mode: Mapped[str] = mapped_column(String(4))
    url: Mapped[str] = mapped_column(String(2000))
    # Null: every type the owner may see.
    types: Mapped[list[str] | None] = mapped_column(ARRAY(String(64)))
    # Signing needs the secret itself, so it is kept, but only sealed (AES-GCM, events/secret_box.py): a copy
    # of the database without the key from the environment cannot sign as the service.
    secret_sealed: Mapped[str] = mapped_column(Text)
    previous_secret_sealed: Mapped[str | None] = mapped_column(Text)
    previous_secret_expires_at: Mapped[datetime.datetime | None] = mapped_column()
    failing_since: Mapped[datetime.datetime | None] = mapped_column()
    # Per-endpoint backoff: while failing, no delivery to it is attempted before this (one probe at a time),
    # so a hanging or failing receiver never holds the queue's workers.
    paused_until: Mapped[datetime.datetime | None] = mapped_column()
    disabled_at: Mapped[datetime.datetime | None] = mapped_column()
    disabled_reason: Mapped[str | None] = mapped_column(String(200))
    # Disabled by its owner (not by failures): a successful test event does not enable it again.
    disabled_manually: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())

    @property
    def owner_id(self):
        return self.clinic_id or self.workspace_id


class WebhookDelivery(ControlBase):
    """One event (or ping) owed to one endpoint. `event_id` is the `webhook-id`, the same on every attempt."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        CheckConstraint("status IN ('pending', 'delivered', 'failed', 'cancelled')", name="status"),
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_endpoint", "endpoint_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    endpoint_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    clinic_id: Mapped[uuid.UUID | None] = mapped_column()
    event_id: Mapped[uuid.UUID] = mapped_column()
    seq: Mapped[int | None] = mapped_column(BigInteger)
    type: Mapped[str] = mapped_column(String(64))
    # The event exactly as delivered: deliveries outlive the feed's retention and need no clinic schema.
    payload: Mapped[dict] = mapped_column()
    status: Mapped[str] = mapped_column(String(10), default="pending")
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    # A worker holds the delivery until then; a crashed worker's claim simply runs out.
    locked_until: Mapped[datetime.datetime | None] = mapped_column()
    # When a queued task is expected to run it; the sweep re-enqueues what is due and not queued.
    queued_for: Mapped[datetime.datetime | None] = mapped_column()
    last_attempt_at: Mapped[datetime.datetime | None] = mapped_column()
    last_status_code: Mapped[int | None] = mapped_column(SmallInteger)
    last_error: Mapped[str | None] = mapped_column(Text)
    delivered_at: Mapped[datetime.datetime | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)


class WebhookAttempt(ControlBase):
    """One request made for a delivery, as the deliveries log shows it. The receiver's answer is kept only
    up to its first 1 KiB (RESPONSE_BODY_BYTES): enough to see what went wrong, never a copy of its pages."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (
        Index("ix_webhook_attempts_delivery", "delivery_id", "attempted_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    delivery_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("webhook_deliveries.id", ondelete="CASCADE"))
    attempted_at: Mapped[datetime.datetime] = mapped_column()
    status_code: Mapped[int | None] = mapped_column(SmallInteger)
    duration_ms: Mapped[int] = mapped_column()
    response_body: Mapped[str | None] = mapped_column(String(1024))
    error: Mapped[str | None] = mapped_column(String(500))
    # When the delivery was to be tried again after this attempt (null: delivered, given up or a test event).
    next_attempt_at: Mapped[datetime.datetime | None] = mapped_column()
