"""What the notifications keep: the notifications each person turned off (every one is on until turned off),
and the review digests sent, one per clinic and local day."""

import datetime
import uuid

from sqlalchemy import Date, ForeignKey, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class TurnedOff(ControlBase):
    """A notification a person does not want (no row: they get it)."""

    __tablename__ = "notifications_turned_off"

    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    turned_off_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class ReviewDigest(ControlBase):
    """A clinic's digest of its local `day`: written before its messages, in their transaction, so two workers
    (or a second run within the day) send it once."""

    __tablename__ = "review_digests"

    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id", ondelete="CASCADE"), primary_key=True)
    day: Mapped[datetime.date] = mapped_column(Date, primary_key=True, index=True)
    waiting: Mapped[int] = mapped_column()
    sent_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
