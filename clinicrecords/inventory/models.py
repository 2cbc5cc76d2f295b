import datetime
import uuid

from sqlalchemy import ARRAY, CheckConstraint, Date, ForeignKey, Index, SmallInteger, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import TenantBase


class InventoryItem(TenantBase):
    """A product the clinic stocks. `quantity` is the till's count; the API shows it only with
    inventory.stock:read, and everyone else at most a band (docs/inventory.md)."""

    __tablename__ = "inventory_items"
    __table_args__ = (
        CheckConstraint("quantity >= 0", name="quantity"),
        CheckConstraint("low_at >= 0", name="low_at"),
        Index("ix_inventory_items_created_at_id", "created_at", "id"),
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


class StockMovement(TenantBase):
    """One entry of an item's stock ledger. The item's quantity is the sum of its movements' `change`
    (`InventoryItem.quantity` caches that sum, written under the item's row lock in the same transaction)."""

    __tablename__ = "stock_movements"
    __table_args__ = (
        CheckConstraint("change <> 0", name="change"),
        CheckConstraint("quantity_after >= 0", name="quantity_after"),
        Index("ix_stock_movements_item_id_created_at", "item_id", "created_at", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    item_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("inventory_items.id"))
    # receipt, dispense, sale, write_off, transfer_out, transfer_in, adjustment
    kind: Mapped[str] = mapped_column(String(20))
    # Signed: what the movement adds to (or takes from) the item's quantity.
    change: Mapped[int] = mapped_column()
    quantity_after: Mapped[int] = mapped_column()
    lot: Mapped[str | None] = mapped_column(String(64))
    expires_on: Mapped[datetime.date | None] = mapped_column(Date)
    reason: Mapped[str | None] = mapped_column(String(500))
    reference: Mapped[str | None] = mapped_column(String(100))
    # api (a connected app), staff (operator command), batch (a till's stock batch), seed (sandbox)
    source: Mapped[str] = mapped_column(String(10))
    batch_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("stock_batches.id"), index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class StockBatch(TenantBase):
    """An accepted till snapshot: the baseline the next batch's shrink rule compares with."""

    __tablename__ = "stock_batches"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    reference: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)


class StockBatchLine(TenantBase):
    """An item's on-hand quantity in an accepted batch. No foreign key to the item: an item with no
    movements may be deleted while an old batch still names it."""

    __tablename__ = "stock_batch_lines"

    batch_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("stock_batches.id"), primary_key=True)
    item_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    quantity: Mapped[int] = mapped_column()
