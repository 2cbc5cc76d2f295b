import datetime
import uuid
from decimal import Decimal

from sqlalchemy import CheckConstraint, String, func, true
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase

CLINIC_KINDS = ("clinic", "pharmacy")


class Clinic(ControlBase):
    """A tenant. Its records live in the schema named by `clinicrecords.db.tenancy.schema_name(id)`."""

    __tablename__ = "clinics"
    __table_args__ = (CheckConstraint("kind IN ('clinic', 'pharmacy')", name="kind"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20), default="clinic")
    currency: Mapped[str] = mapped_column(String(3), default="USD")
    lat: Mapped[Decimal | None] = mapped_column()
    lng: Mapped[Decimal | None] = mapped_column()
    # The workspace whose sandbox this clinic is; null for a real clinic.
    sandbox_of_workspace_id: Mapped[uuid.UUID | None] = mapped_column(unique=True)
    schema_revision: Mapped[str | None] = mapped_column(String(64))
    # IANA name: clinicians' working hours are in this local time (docs/scheduling.md).
    timezone: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    # Plan features (docs/decisions/0020-plan-features.md): on unless an operator turns them off (`clinic set`).
    api_access: Mapped[bool] = mapped_column(default=True, server_default=true())
    api_addon: Mapped[bool] = mapped_column(default=True, server_default=true())
    data_agreement: Mapped[bool] = mapped_column(default=True, server_default=true())
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    # A closed workspace's sandbox: its schema is gone, the row stays (keys, audit rows and events name it).
    schema_dropped_at: Mapped[datetime.datetime | None] = mapped_column()

    @property
    def is_sandbox(self):
        return self.sandbox_of_workspace_id is not None
