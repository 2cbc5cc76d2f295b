import datetime
import uuid

from sqlalchemy import CheckConstraint, ForeignKey, LargeBinary, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase

ROLES = ("admin", "clinician")


class ClinicStaff(ControlBase):
    """An account's place on a clinic's staff. An admin manages the clinic's key, automatic acceptance and
    staff; a clinician decides the review queue. A staff account is never a workspace member."""

    __tablename__ = "clinic_staff"
    __table_args__ = (CheckConstraint("role IN ('admin', 'clinician')", name="role"),)

    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), primary_key=True)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("portal_accounts.id"), primary_key=True,
                                                  index=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class StaffInvitation(ControlBase):
    """A one-time link to join a clinic's staff (setting a password when the person has no account yet).
    Only a hash of the link's token is stored; it works once, for 7 days, for that email."""

    __tablename__ = "clinic_staff_invitations"
    __table_args__ = (CheckConstraint("role IN ('admin', 'clinician')", name="role"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), index=True)
    email: Mapped[str] = mapped_column(String(254))
    role: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    invited_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("portal_accounts.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime.datetime] = mapped_column()
    accepted_at: Mapped[datetime.datetime | None] = mapped_column()
