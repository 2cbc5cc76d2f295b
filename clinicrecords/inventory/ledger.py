"""The stock ledger: every change of an item's quantity is a movement; the quantity is their sum.

`InventoryItem.quantity` caches that sum. It is written only here, under the item's row lock
(SELECT ... FOR UPDATE), in the transaction that adds the movement, so concurrent movements on one item
serialize and none can take the stock below zero. Bands, the network projection and
inventory.availability.changed follow from each movement (docs/inventory.md).
"""

from sqlalchemy import delete, exists, func, select

from clinicrecords import clock
from clinicrecords.api.problems import Problem
from clinicrecords.events.services import emit
from clinicrecords.inventory import bands, network
from clinicrecords.inventory.models import InventoryItem, StockMovement
from clinicrecords.inventory.tills import announce_silence, ensure_till

KINDS = ("receipt", "dispense", "sale", "write_off", "transfer_out", "transfer_in", "adjustment")
INBOUND = frozenset({"receipt", "transfer_in"})
OUTBOUND = frozenset({"dispense", "sale", "write_off", "transfer_out"})
SOURCES = ("api", "staff", "batch", "seed")
MAX_QUANTITY = 1_000_000

AVAILABILITY_CHANGED = "inventory.availability.changed"
ITEM_DELETED = "inventory.item.deleted"


def lock_item(db, item_id):
    """The item, locked for the rest of the transaction, as last committed; None when absent."""
    return db.get(InventoryItem, item_id, with_for_update=True, populate_existing=True)


def signed_change(kind, quantity):
    """An API movement's `quantity` as its signed change: outbound kinds take, inbound kinds add, an
    adjustment carries its own sign."""
    if kind in OUTBOUND:
        return -quantity
    return quantity


def ledger_sum(db, item_id):
    return db.scalar(select(func.coalesce(func.sum(StockMovement.change), 0))
                     .where(StockMovement.item_id == item_id))


def lot_balance(db, item_id, lot):
    return db.scalar(select(func.coalesce(func.sum(StockMovement.change), 0))
                     .where(StockMovement.item_id == item_id, StockMovement.lot == lot))


def lot_expiry(db, item_id, lot):
    """The expiry recorded for a lot of the item: the latest one stated on any of its movements."""
    return db.scalar(select(StockMovement.expires_on)
                     .where(StockMovement.item_id == item_id, StockMovement.lot == lot,
                            StockMovement.expires_on.is_not(None))
                     .order_by(StockMovement.created_at.desc(), StockMovement.id.desc()).limit(1))


def _check(db, item, kind, change, lot, expires_on, reason, today):
    if kind == "write_off" and not reason:
        raise Problem("reason_required", "A write-off needs its reason.",
                      errors=[{"pointer": "/reason", "message": "required for a write_off"}])
    if kind == "transfer_out":
        expiry = expires_on or (lot_expiry(db, item.id, lot) if lot else None)
        if expiry is not None and expiry < today:
            raise Problem("expired_stock_not_transferable",
                          f"Lot {lot or '(unnamed)'} expired on {expiry.isoformat()}; write it off instead.",
                          errors=[{"pointer": "/lot" if lot else "/expires_on", "message": "expired"}])
    if change < 0:
        if item.quantity + change < 0:
            raise Problem("insufficient_stock", f"The item's stock cannot cover {-change}.",
                          errors=[{"pointer": "/quantity", "message": "more than the item's stock"}])
        if lot and lot_balance(db, item.id, lot) + change < 0:
            raise Problem("insufficient_stock", f"Lot {lot} of the item cannot cover {-change}.",
                          errors=[{"pointer": "/quantity", "message": "more than the lot's stock"}])


def record(db, projection, clinic, item, *, kind, change, age, source, lot=None, expires_on=None, reason=None,
           reference=None, batch_id=None, movement_id=None, now=None):
    """Add one movement to a locked item (`lock_item`) and everything that follows from it.

    Refusals (nothing written): write_off without reason → reason_required; transfer_out of a lot whose
    expiry is past → expired_stock_not_transferable; a change the item's (or the named lot's) stock cannot
    cover → insufficient_stock.
    """
    now = now or clock.now()
    reason = (reason or "").strip() or None
    if kind not in KINDS or source not in SOURCES or change == 0:
        raise ValueError(f"not a ledger movement: {kind} {change} from {source}")
    _check(db, item, kind, change, lot, expires_on, reason, now.date())

    current_till = ensure_till(db)
    announce_silence(db, projection, clinic, current_till, age, now)
    before = bands.effective_band(item, current_till, now, age, clinic.is_sandbox)
    movement = StockMovement(item_id=item.id, kind=kind, change=change, quantity_after=item.quantity + change,
                             lot=lot, expires_on=expires_on, reason=reason, reference=reference, source=source,
                             batch_id=batch_id, created_at=now)
    if movement_id is not None:
        movement.id = movement_id
    db.add(movement)
    item.quantity = movement.quantity_after
    item.stock_changed_at = now
    db.flush()
    after = bands.effective_band(item, current_till, now, age, clinic.is_sandbox)
    network.sync_item(db, projection, clinic, item, current_till)
    if after != before:
        emit(db, clinic.id, AVAILABILITY_CHANGED, item.id, {"id": str(item.id), "band": after,
                                                            "previous_band": before})
    return movement


def delete_item(db, projection, clinic, item_id, origin_id=None):
    """Delete an item that never moved. Refusals: item_has_stock, then item_has_history."""
    item = lock_item(db, item_id)
    if item is None:
        return False
    if item.quantity > 0:
        raise Problem("item_has_stock", "The item still has stock; record its movements out first.")
    if db.scalar(select(exists().where(StockMovement.item_id == item.id))):
        raise Problem("item_has_history", "The item has ledger movements; its history is kept.")
    projection.remove_item(db, clinic, item.id)
    db.execute(delete(InventoryItem).where(InventoryItem.id == item.id))
    emit(db, clinic.id, ITEM_DELETED, item.id, {"id": str(item.id)}, origin_id=origin_id)
    return True


def movements_of(item_id):
    return select(StockMovement).where(StockMovement.item_id == item_id)


SORT = (StockMovement.created_at, StockMovement.id)
