import datetime
import uuid

from sqlalchemy import CheckConstraint, Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class OutgoingMail(ControlBase):
    """One message owed to one recipient, written in the transaction that decided to send it (the outbox).

    `content` is the whole message as it goes on the wire, so a retry sends exactly the same bytes (the same
    Message-ID). It is erased once the message is sent or given up: a link's single-use token lies in the
    database only while its message waits."""

    __tablename__ = "mail_outbox"
    __table_args__ = (
        CheckConstraint("status IN ('pending', 'sent', 'failed')", name="status"),
        Index("ix_mail_outbox_due", "status", "next_attempt_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    template: Mapped[str] = mapped_column(String(64))
    sender: Mapped[str] = mapped_column(String(254))
    recipient: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(200))
    content: Mapped[bytes | None] = mapped_column()
    status: Mapped[str] = mapped_column(String(10), default="pending")
    # Attempts begun (a claim counts): a message whose sending kills its worker is given up too.
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    # A worker holds the message until then; a killed worker's claim simply runs out.
    locked_until: Mapped[datetime.datetime | None] = mapped_column()
    # When a queued task is expected to send it; the sweep queues again what is due and not expected.
    queued_for: Mapped[datetime.datetime | None] = mapped_column()
    last_attempt_at: Mapped[datetime.datetime | None] = mapped_column()
    # The SMTP reply code or the error's kind, never the server's text (it may repeat the address).
    last_error: Mapped[str | None] = mapped_column(String(200))
    sent_at: Mapped[datetime.datetime | None] = mapped_column()
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)
