import datetime
import uuid

from sqlalchemy import Index, LargeBinary, SmallInteger, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class IdempotencyRecord(ControlBase):
    """The original answer to a write sent with an Idempotency-Key, per key owner (clinic or workspace)."""

    __tablename__ = "idempotency_records"
    __table_args__ = (Index("ix_idempotency_records_created_at", "created_at"),)

    owner_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[bytes] = mapped_column(LargeBinary(32))
    status: Mapped[int] = mapped_column(SmallInteger)
    headers: Mapped[dict] = mapped_column()
    body: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    # The clinic the write entered (None for a path naming none): a clinic's restore forgets the answers stored
    # after its point in time for writes to it, whoever's key sent them.
    clinic_id: Mapped[uuid.UUID | None] = mapped_column()
