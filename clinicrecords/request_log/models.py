import datetime
import uuid

from sqlalchemy import BigInteger, Identity, Index, SmallInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class RequestLogEntry(ControlBase):
    """One API request made with a valid key, kept 7 days for the key owner's request log.

    Never a body, a query string or a value from one: the path keeps route words and record ids only."""

    __tablename__ = "request_log"
    __table_args__ = (
        # The log is read per owner, newest first, in (occurred_at, id) keyset pages.
        Index("ix_request_log_owner_id_occurred_at_id", "owner_id", "occurred_at", "id"),
        Index("ix_request_log_request_id", "request_id"),
        # Rows arrive in time order: a BRIN index finds the expired ones for the prune at almost no cost.
        Index("ix_request_log_occurred_at", "occurred_at", postgresql_using="brin"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(always=True), primary_key=True)
    occurred_at: Mapped[datetime.datetime] = mapped_column()
    owner_id: Mapped[uuid.UUID] = mapped_column()  # the key's workspace, or its clinic for a clinic-owned key
    key_id: Mapped[str] = mapped_column(String(32))
    key_mode: Mapped[str] = mapped_column(String(4))
    clinic_id: Mapped[uuid.UUID | None] = mapped_column()
    method: Mapped[str] = mapped_column(String(10))
    path: Mapped[str] = mapped_column(String(500))
    status: Mapped[int] = mapped_column(SmallInteger)
    code: Mapped[str | None] = mapped_column(String(64))
    request_id: Mapped[str] = mapped_column(String(40))
    latency_ms: Mapped[float] = mapped_column()
