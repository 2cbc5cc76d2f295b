import datetime
import uuid

from sqlalchemy import String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class Account(ControlBase):
    """A person who signs in to the portal. The email is kept lower-cased; the password as an argon2id hash."""

    __tablename__ = "portal_accounts"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    password_changed_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class LoginFailure(ControlBase):
    """A failed log-in, for throttling per account (the email typed, known or not) and per address."""

    __tablename__ = "portal_login_failures"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    email: Mapped[str] = mapped_column(String(254), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)
