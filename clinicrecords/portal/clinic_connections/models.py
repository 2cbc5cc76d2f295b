import datetime
import uuid

from sqlalchemy import CheckConstraint, ForeignKey, String, func
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class ConnectionRequest(ControlBase):
    """An organization's request to connect to a clinic, naming the permissions it wants. A clinic admin
    approves it (granting those permissions or fewer, with an optional expiry) or declines it, or the organization
    withdraws it while it waits; each stays visible with who and when (`decided_by`, `decided_at`)."""

    __tablename__ = "connection_requests"
    __table_args__ = (CheckConstraint("status IN ('pending', 'approved', 'declined', 'withdrawn')", name="status"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), index=True)
    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), index=True)
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String(64)))
    status: Mapped[str] = mapped_column(String(10), default="pending")
    requested_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"))
    requested_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    granted_scopes: Mapped[list[str] | None] = mapped_column(ARRAY(String(64)))
    decided_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"))
    decided_at: Mapped[datetime.datetime | None] = mapped_column()
