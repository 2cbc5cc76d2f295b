"""Till stock batches: a pharmacy's till reports a whole snapshot of on-hand quantities.

An accepted batch becomes adjustment movements (source `batch`), marks the till fresh (`report_till`) and
updates the network projection, all in one transaction. A batch is refused whole (409 batch_rejected, the
reason in `detail`) when it is structurally invalid or shows a suspicious shrink against the last accepted
batch (`shrink_reason`). Rules: docs/inventory.md "Till stock batches".
"""

from dataclasses import dataclass

from sqlalchemy import select

from clinicrecords import clock
from clinicrecords.api.problems import Problem
from clinicrecords.inventory import ledger
from clinicrecords.inventory.product_codes import normalize_gtin
from clinicrecords.inventory.models import InventoryItem, StockBatch, StockBatchLine, TillState
from clinicrecords.inventory.tills import ensure_till, report_till
from clinicrecords.settings import InventorySettings



@dataclass(frozen=True)
class ShrinkRule:
    """Reject when more than `max_zeroed_share` of the items that had stock in the last accepted batch
    drop to zero at once; considered only when at least `min_items` items had stock."""

    max_zeroed_share: float = InventorySettings.batch_max_zeroed_share
    min_items: int = InventorySettings.batch_shrink_min_items

    @classmethod
    def from_settings(cls, settings):
        """From the `inventory.*` settings (an InventorySettings)."""
        return cls(settings.batch_max_zeroed_share, settings.batch_shrink_min_items)


def shrink_reason(rule, previous, snapshot):
    """Why `snapshot` ({item_id: quantity}) is a suspicious shrink against `previous` (the last accepted
    batch's {item_id: quantity}), or None. Items the snapshot does not list keep their stock: not zeroed."""
    had_stock = [item_id for item_id, quantity in previous.items() if quantity > 0]
    if len(had_stock) < rule.min_items:
        return None
    zeroed = [item_id for item_id in had_stock if snapshot.get(item_id) == 0]
    if len(zeroed) > rule.max_zeroed_share * len(had_stock):
        return (f"suspicious shrink: {len(zeroed)} of the {len(had_stock)} items that had stock in the last "
                f"accepted batch drop to zero at once (more than {rule.max_zeroed_share:.0%})")
    return None


def _reject(detail, errors):
    raise Problem("batch_rejected", detail, errors=errors or None)


def resolve(db, lines):
    """[{item_id | gtin, quantity}] → {item_id: quantity}, or batch_rejected naming every bad line."""
    errors = []

    def bad(index, field, message):
        errors.append({"pointer": f"/items/{index}/{field}" if field else f"/items/{index}", "message": message})

    if not lines:
        _reject("A batch lists at least one item.", [{"pointer": "/items", "message": "empty"}])
    gtins = {}
    for index, line in enumerate(lines):
        if ("item_id" in line) == ("gtin" in line):
            bad(index, "", "give exactly one of item_id and gtin")
        elif "gtin" in line:
            try:
                gtins[index] = normalize_gtin(line["gtin"])
            except ValueError as exc:
                bad(index, "gtin", str(exc))
        if line["quantity"] < 0:
            bad(index, "quantity", "a quantity on hand is 0 or more")
    by_gtin = {}
    if gtins:
        for item_id, gtin in db.execute(select(InventoryItem.id, InventoryItem.gtin)
                                        .where(InventoryItem.gtin.in_(set(gtins.values())))):
            by_gtin.setdefault(gtin, []).append(item_id)
    ids = {line["item_id"] for line in lines if "item_id" in line}
    known = set(db.scalars(select(InventoryItem.id).where(InventoryItem.id.in_(ids)))) if ids else set()
    snapshot, seen = {}, {}
    for index, line in enumerate(lines):
        if "item_id" in line and "gtin" not in line:
            item_id = line["item_id"]
            if item_id not in known:
                bad(index, "item_id", "no such item in this clinic")
                continue
        elif index in gtins:
            found = by_gtin.get(gtins[index], [])
            if len(found) != 1:
                bad(index, "gtin", "no item in this clinic has this GTIN" if not found
                    else "several items of this clinic share this GTIN; send their item_id")
                continue
            item_id = found[0]
        else:
            continue
        if item_id in seen:
            bad(index, "", f"the item is already listed at /items/{seen[item_id]}")
            continue
        seen[item_id] = index
        snapshot[item_id] = line["quantity"]
    if errors:
        _reject(f"The batch is structurally invalid: {len(errors)} bad line(s); first: {errors[0]['pointer']} "
                f"{errors[0]['message']}.", errors)
    return snapshot


def _lock_till(db):
    ensure_till(db)
    return db.execute(select(TillState).with_for_update().execution_options(populate_existing=True)).scalar_one()


def last_accepted(db):
    batch_id = db.scalar(select(StockBatch.id).order_by(StockBatch.created_at.desc(), StockBatch.id.desc())
                         .limit(1))
    if batch_id is None:
        return {}
    return dict(db.execute(select(StockBatchLine.item_id, StockBatchLine.quantity)
                           .where(StockBatchLine.batch_id == batch_id)).all())


@dataclass
class Accepted:
    batch: StockBatch
    lines: list  # [(item_id, quantity, change)]
    till_was_stale: bool


def accept(db, projection, clinic, lines, age, rule, reference=None, now=None):
    """Check and apply a till's snapshot. Batches of one clinic serialize on its till row, so each one's
    shrink rule compares with the batch accepted just before it."""
    now = now or clock.now()
    _lock_till(db)
    snapshot = resolve(db, lines)
    reason = shrink_reason(rule, last_accepted(db), snapshot)
    if reason:
        _reject(f"The batch was rejected: {reason}. Check the till, or correct single items with movements.",
                None)
    batch = StockBatch(reference=reference, created_at=now)
    db.add(batch)
    db.flush()
    db.add_all(StockBatchLine(batch_id=batch.id, item_id=item_id, quantity=quantity)
               for item_id, quantity in snapshot.items())
    # Every item locked, in one order, before anything is written: a concurrent movement then finishes
    # (or waits) whole, and never holds an item while waiting for the projection row this batch holds.
    items = [ledger.lock_item(db, item_id) for item_id in sorted(snapshot)]
    applied = []
    for item in items:
        item_id = item.id
        change = snapshot[item_id] - item.quantity
        if change:
            ledger.record(db, projection, clinic, item, kind="adjustment", change=change, age=age, source="batch",
                          reason="till stock batch", batch_id=batch.id, now=now)
        applied.append((item_id, snapshot[item_id], change))
    _, was_stale = report_till(db, projection, clinic, age, now=now)
    db.flush()
    return Accepted(batch, applied, was_stale)
