"""The clinic's inventory and till: items, stock, freshness. Every change keeps the network projection
(the listings context's, an `INetworkProjection` found with `network_projection(registry)`) and emits its
events in the same transaction.

Functions take the session already bound to the clinic (`open_clinic`), the projection and the `Clinic`; `now`
and `age` (the till's maximum silence, from `inventory.till_max_age_minutes`) are explicit so the rules are
testable.
What other contexts read of the inventory is importable from here (`IInventory` for a clinic's items).
"""

import uuid

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.api.pagination import keyset_page, list_cursors
from clinicrecords.api.problems import Problem
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.errors import InvalidInput
from clinicrecords.events.services import emit
from clinicrecords.inventory import bands, batches, ledger, network
from clinicrecords.inventory.bands import BANDS, max_age
from clinicrecords.inventory.product_codes import (
    GTIN_PATTERN,
    REGULATOR_PATTERN,
    gtin_input,
    normalize_gtin,
    normalize_regulator_number,
    regulator_input,
)
from clinicrecords.inventory.interfaces import IInventory
from clinicrecords.inventory.models import InventoryItem, TillState
from clinicrecords.inventory.network import linked_items_with_bands, network_projection, till_row
from clinicrecords.inventory.tills import (
    FRESHNESS_CHANGED,
    ensure_till,
    mark_till_stale,
    report_till,
    sweep_stale_tills,
    till,
)
from clinicrecords.settings import app_settings

__all__ = ["BANDS", "FRESHNESS_CHANGED", "GTIN_PATTERN", "REGULATOR_PATTERN", "InventoryError", "InventoryService",
           "create_item", "ensure_till", "get_item", "inventory_service_factory", "linked_items_with_bands",
           "mark_till_stale", "max_age", "network_projection", "normalize_gtin", "normalize_regulator_number",
           "report_till", "set_linked", "set_stock", "sweep_stale_tills", "till", "till_row"]

AVAILABILITY_CHANGED = "inventory.availability.changed"
ITEM_CREATED = "inventory.item.created"
ITEM_UPDATED = "inventory.item.updated"


class InventoryError(InvalidInput):
    """Bad input for an inventory operation; nothing was written."""


def _text(value, field, required=False, limit=200):
    value = (value or "").strip()
    if not value:
        if required:
            raise InventoryError(f"{field} is required")
        return None
    if len(value) > limit:
        raise InventoryError(f"{field} is at most {limit} characters")
    return value


def _count(value, field):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InventoryError(f"{field} must be a whole number, 0 or more")
    return value


def create_item(db, projection, clinic, *, name, generic_name=None, brand_name=None, gtin=None, regulator_numbers=(),
                low_at=5, linked=False, item_id=None, now=None):
    item = InventoryItem(
        id=item_id or uuid.uuid4(), name=_text(name, "name", required=True),
        generic_name=_text(generic_name, "generic name"), brand_name=_text(brand_name, "brand name"),
        gtin=gtin_input(gtin) if gtin else None,
        regulator_numbers=sorted({regulator_input(number) for number in regulator_numbers}),
        quantity=0, low_at=_count(low_at, "low_at"), linked=bool(linked), stock_changed_at=now or clock.now(),
    )
    db.add(item)
    db.flush()
    network.sync_item(db, projection, clinic, item, ensure_till(db))
    emit(db, clinic.id, ITEM_CREATED, item.id, {"id": str(item.id)})
    return item


def get_item(db, item_id):
    item = db.get(InventoryItem, item_id, populate_existing=True)
    if item is None:
        raise InventoryError(f"no inventory item {item_id} in this clinic")
    return item


def set_stock(db, projection, clinic, item_id, quantity, age, now=None, source="staff"):
    """Staff (`stock set`): the item's counted quantity. Recorded as the adjustment movement that brings
    the ledger to it (none when it already matches); bands, projection and events follow from the ledger.
    """
    quantity = _count(quantity, "quantity")
    item = ledger.lock_item(db, item_id)
    if item is None:
        raise InventoryError(f"no inventory item {item_id} in this clinic")
    if quantity != item.quantity:
        ledger.record(db, projection, clinic, item, kind="adjustment", change=quantity - item.quantity, age=age,
                      source=source, reason="stock count", now=now)
    return item


def set_linked(db, projection, clinic, item_id, linked):
    """List the item to the network, or take it off. Off means it never appears, by text or by code."""
    item = get_item(db, item_id)
    if item.linked != linked:
        item.linked = linked
        db.flush()
        emit(db, clinic.id, ITEM_UPDATED, item.id, {"id": str(item.id)})
    network.sync_item(db, projection, clinic, item, ensure_till(db))
    return item


@implementer(IInventory)
class InventoryService:
    """The scope's clinic: reads, and the API's writes. `projection` is the network projection the writes keep
    in step, `age` the till's maximum silence, `shrink_rule` the stock batches' check, `cursors` the request's
    list cursors (ListCursors)."""

    def __init__(self, scope, projection, age, shrink_rule, cursors, now=None):
        self.db = scope.db
        self.projection = projection
        self.clinic = scope.clinic
        self.owner_id = scope.identity.owner_id
        self.age = age
        self.shrink_rule = shrink_rule
        self.cursors = cursors
        self.now = now or clock.now()
        self._till = None

    @property
    def till(self):
        if self._till is None:
            self._till = till(self.db) or TillState(id=1)
        return self._till

    def band(self, item):
        return bands.effective_band(item, self.till, self.now, self.age, self.clinic.is_sandbox)

    def as_of(self, item):
        return bands.as_of(item, self.till, self.now, self.age, self.clinic.is_sandbox)

    def stale(self):
        return bands.is_stale(self.till, self.now, self.age, self.clinic.is_sandbox)

    def get(self, item_id, linked_only=False):
        statement = select(InventoryItem).where(InventoryItem.id == item_id)
        if linked_only:
            statement = statement.where(InventoryItem.linked.is_(True))
        return self.db.scalar(statement)

    def delete(self, item_id):
        return ledger.delete_item(self.db, self.projection, self.clinic, item_id, origin_id=self.owner_id)

    def movements(self, item_id, query):
        return keyset_page(self.cursors, self.db, ledger.movements_of(item_id), ledger.SORT, query)

    def record_movement(self, item_id, body):
        item = ledger.lock_item(self.db, item_id)
        if item is None:  # deleted since traversal found it
            raise Problem("not_found")
        return ledger.record(self.db, self.projection, self.clinic, item, kind=body["kind"],
                             change=ledger.signed_change(body["kind"], body["quantity"]), age=self.age,
                             source="api", lot=body.get("lot"), expires_on=body.get("expires_on"),
                             reason=body.get("reason"), reference=body.get("reference"), now=self.now)

    def accept_batch(self, body):
        return batches.accept(self.db, self.projection, self.clinic, body["items"], self.age, self.shrink_rule,
                              reference=body.get("reference"), now=self.now)

    def list(self, query, linked_only=False):
        statement = select(InventoryItem)
        if linked_only:
            statement = statement.where(InventoryItem.linked.is_(True))
        if query.get("updated_since"):
            statement = statement.where(InventoryItem.updated_at >= query["updated_since"])
        return keyset_page(self.cursors, self.db, statement, (InventoryItem.created_at, InventoryItem.id), query)


def inventory_service_factory(context, request):
    settings = app_settings(request.registry).inventory
    return InventoryService(clinic_scope(context), network_projection(request.registry), max_age(settings),
                            batches.ShrinkRule.from_settings(settings), list_cursors(request))


# The till's staff actions as the operator commands print them (`stock set`, `till report|stale`); the sandbox's
# test helpers answer with the same. `settings`: the `inventory.*` settings (an InventorySettings).

def set_stock_as_staff(db, projection, clinic, item_id, quantity, settings):
    age = bands.max_age(settings)
    item = set_stock(db, projection, clinic, item_id, quantity, age)
    return {"item_id": str(item.id), "quantity": item.quantity,
            "band": bands.effective_band(item, till(db), clock.now(), age, clinic.is_sandbox)}


def report_till_as_staff(db, projection, clinic, settings):
    current_till, changed = report_till(db, projection, clinic, bands.max_age(settings))
    return {"clinic_id": str(clinic.id), "stale": False, "changed": changed,
            "last_reported_at": current_till.last_reported_at.isoformat()}


def mark_till_stale_as_staff(db, projection, clinic, settings):
    _, changed = mark_till_stale(db, projection, clinic, bands.max_age(settings))
    return {"clinic_id": str(clinic.id), "stale": True, "changed": changed}
