"""The web layer's tables: what one POST shows once, and the portal's audit trail (control schema). Sessions
are the identity context's."""

import datetime
import uuid

from sqlalchemy import ForeignKey, LargeBinary, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class OneTimeRead(ControlBase):
    """What one POST's answer shows once (a new key's secret, an invitation link, a notice), kept for the page
    the POST redirects to (clinicrecords.portal.web.once). Sealed with a key derived from the session's cookie
    token, which the database never holds: a copy of this table opens nothing, and another session cannot
    read it."""

    __tablename__ = "portal_one_time_reads"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    sealed: Mapped[bytes] = mapped_column(LargeBinary)
    expires_at: Mapped[datetime.datetime] = mapped_column(index=True)


class PortalAuditEntry(ControlBase):
    """A portal action: who (account; null for an operator), when, which workspace or clinic, what. Never a
    secret."""

    __tablename__ = "portal_audit"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)
    account_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"))
    workspace_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("workspaces.id"), index=True)
    clinic_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clinics.id"), index=True)
    action: Mapped[str] = mapped_column(String(64))
    target: Mapped[str | None] = mapped_column(String(200))
    details: Mapped[dict] = mapped_column(default=dict)
