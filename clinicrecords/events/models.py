import datetime
import uuid

from sqlalchemy import BigInteger, SmallInteger, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


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


class EventCounter(TenantBase):
    """One row: the last seq handed out. Taking the next value locks the row until commit, so events of
    one clinic commit in seq order and a reader that saw seq N never later finds a new event at or below N."""

    __tablename__ = "event_counter"

    id: Mapped[int] = mapped_column(SmallInteger, primary_key=True, default=1)
    value: Mapped[int] = mapped_column(BigInteger, default=0)
