import datetime
import uuid

from sqlalchemy import ARRAY, CheckConstraint, SmallInteger, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class InventoryItem(TenantBase):
    """A product the clinic stocks. `quantity` is the till's count; the API shows it only with
    inventory.stock:read, and everyone else at most a band (docs/inventory.md)."""

    __tablename__ = "inventory_items"
    __table_args__ = (
        CheckConstraint("quantity >= 0", name="quantity"),
        CheckConstraint("low_at >= 0", name="low_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(200))
    generic_name: Mapped[str | None] = mapped_column(String(200))
    brand_name: Mapped[str | None] = mapped_column(String(200))
    # GTIN-14 form (shorter GTINs are left-padded with zeros), check digit verified.
    gtin: Mapped[str | None] = mapped_column(String(14), index=True)
    regulator_numbers: Mapped[list[str]] = mapped_column(ARRAY(String(64)), default=list)
    quantity: Mapped[int] = mapped_column(default=0)
    # Band thresholds: out at 0, low while 1..low_at, in_stock above.
    low_at: Mapped[int] = mapped_column(default=5)
    # Listed to the network (pharmacy listings and the network search) or kept private.
    linked: Mapped[bool] = mapped_column(default=False)
    stock_changed_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    updated_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), onupdate=func.now(),
                                                          index=True)


class TillState(TenantBase):
    """One row: when the clinic's till last reported stock, and since when it is announced stale."""

    __tablename__ = "till_state"

    id: Mapped[int] = mapped_column(SmallInteger, primary_key=True, default=1)
    last_reported_at: Mapped[datetime.datetime | None] = mapped_column()
    # Set when staleness was announced (staff command or the periodic sweep); cleared by a report.
    stale_since: Mapped[datetime.datetime | None] = mapped_column()
