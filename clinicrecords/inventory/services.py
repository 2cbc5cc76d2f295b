"""The clinic's inventory and till: items, stock, freshness. Every change keeps the network projection
(clinicrecords.listings.projection) and emits its events in the same transaction.

Functions take the session already bound to the clinic (`open_clinic`) and the `Clinic`; `now` and `age`
(the till's maximum silence, from `inventory.till_max_age_minutes`) are explicit so the rules are testable.
"""

import datetime
import uuid

from clinicrecords.api.problems import Problem
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from clinicrecords.api.pagination import keyset_page
from clinicrecords.errors import InvalidInput
from clinicrecords.events.outbox import emit
from clinicrecords.inventory import bands, ledger
from clinicrecords.inventory.product_codes import gtin_input, regulator_input
from clinicrecords.inventory.models import InventoryItem, TillState
from clinicrecords.listings import projection

AVAILABILITY_CHANGED = "inventory.availability.changed"
FRESHNESS_CHANGED = "listing.freshness.changed"
ITEM_CREATED = "inventory.item.created"
ITEM_UPDATED = "inventory.item.updated"


class InventoryError(InvalidInput):
    """Bad input for an inventory operation; nothing was written."""


def _now():
    return datetime.datetime.now(datetime.UTC)


def till(db):
    """The clinic's till row or None. Always re-read: every clinic's row has the same primary key."""
    return db.execute(select(TillState).execution_options(populate_existing=True)).scalar_one_or_none()


def ensure_till(db):
    db.execute(insert(TillState).values(id=1).on_conflict_do_nothing())
    return till(db)


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


def create_item(db, clinic, *, name, generic_name=None, brand_name=None, gtin=None, regulator_numbers=(),
                low_at=5, linked=False, item_id=None, now=None):
    item = InventoryItem(
        id=item_id or uuid.uuid4(), name=_text(name, "name", required=True),
        generic_name=_text(generic_name, "generic name"), brand_name=_text(brand_name, "brand name"),
        gtin=gtin_input(gtin) if gtin else None,
        regulator_numbers=sorted({regulator_input(number) for number in regulator_numbers}),
        quantity=0, low_at=_count(low_at, "low_at"), linked=bool(linked), stock_changed_at=now or _now(),
    )
    db.add(item)
    db.flush()
    db.refresh(item)
    projection.sync_item(db, clinic, item, ensure_till(db))
    emit(db, clinic.id, ITEM_CREATED, item.id, {"id": str(item.id)})
    return item


def get_item(db, item_id):
    item = db.get(InventoryItem, item_id, populate_existing=True)
    if item is None:
        raise InventoryError(f"no inventory item {item_id} in this clinic")
    return item


def set_stock(db, clinic, item_id, quantity, age, now=None, source="staff"):
    """Staff (`stock set`): the item's counted quantity. Recorded as the adjustment movement that brings
    the ledger to it (none when it already matches); bands, projection and events follow from the ledger.
    """
    quantity = _count(quantity, "quantity")
    item = ledger.lock_item(db, item_id)
    if item is None:
        raise InventoryError(f"no inventory item {item_id} in this clinic")
    if quantity != item.quantity:
        ledger.record(db, clinic, item, kind="adjustment", change=quantity - item.quantity, age=age,
                      source=source, reason="stock count", now=now)
    return item


def set_linked(db, clinic, item_id, linked):
    """List the item to the network, or take it off. Off means it never appears, by text or by code."""
    item = get_item(db, item_id)
    if item.linked != linked:
        item.linked = linked
        db.flush()
        db.refresh(item)
        emit(db, clinic.id, ITEM_UPDATED, item.id, {"id": str(item.id)})
    projection.sync_item(db, clinic, item, ensure_till(db))
    return item


def _announce_stale(db, clinic, current_till, now, age):
    """Mark the till stale once; the event's `since` is when it really became stale."""
    if current_till.stale_since is not None:
        return False
    by_time = bands.stale_by_time_since(current_till, age)
    if current_till.last_reported_at is None:
        # Never reported: readers already saw unknown, so nothing changes for them.
        current_till.stale_since = now
        return False
    since = by_time if by_time <= now and not clinic.is_sandbox else now
    current_till.stale_since = since
    emit(db, clinic.id, FRESHNESS_CHANGED, clinic.id, {"stale": True, "since": since.isoformat()})
    return True


def mark_till_stale(db, clinic, age, now=None):
    """Staff: the till stopped reporting. Returns (till, whether readers saw a change)."""
    current_till = ensure_till(db)
    changed = _announce_stale(db, clinic, current_till, now or _now(), age)
    db.flush()
    projection.sync_clinic(db, clinic, current_till)
    return current_till, changed


def report_till(db, clinic, age, now=None):
    """The till reported: fresh again. A silence nobody announced yet is announced first, so every
    change of freshness has exactly one event, in order."""
    now = now or _now()
    current_till = ensure_till(db)
    was_stale = bands.is_stale(current_till, now, age, clinic.is_sandbox)
    if was_stale and current_till.stale_since is None and current_till.last_reported_at is not None:
        _announce_stale(db, clinic, current_till, now, age)
    current_till.last_reported_at = now
    current_till.stale_since = None
    if was_stale:
        emit(db, clinic.id, FRESHNESS_CHANGED, clinic.id, {"stale": False, "since": now.isoformat()})
    db.flush()
    projection.sync_clinic(db, clinic, current_till)
    return current_till, was_stale


def sweep_stale_tills(db, age, now=None):
    """Announce every till that fell silent for longer than `age` (run every minute by the worker).

    Candidates come from the projection's clinic rows in the control schema: no clinic schema is opened
    unless its till actually went stale.
    """
    from clinicrecords.clinics.services import open_clinic
    from clinicrecords.listings.models import ListingClinic

    now = now or _now()
    candidates = db.scalars(select(ListingClinic.clinic_id).where(
        ListingClinic.till_stale_since.is_(None), ListingClinic.till_reported_at <= now - age,
        ListingClinic.sandbox_workspace_id.is_(None)).order_by(ListingClinic.clinic_id)).all()
    announced = []
    for clinic_id in candidates:
        clinic = open_clinic(db, clinic_id)
        current_till = ensure_till(db)
        if bands.is_stale(current_till, now, age) and _announce_stale(db, clinic, current_till, now, age):
            announced.append(clinic_id)
        db.flush()
        projection.sync_clinic(db, clinic, current_till)
        db.expunge(current_till)
    return announced


class InventoryService:
    """Reads for the request's clinic (bound by traversal)."""

    def __init__(self, request, clinic):
        self.request = request
        self.db = request.db
        self.clinic = clinic
        self.age = bands.max_age(request.registry.settings)
        self.now = _now()
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
        return ledger.delete_item(self.db, self.clinic, item_id, origin_id=self.request.identity.owner_id)

    def movements(self, item_id, query):
        return keyset_page(self.request, self.db, ledger.movements_of(item_id), ledger.SORT, query)

    def record_movement(self, item_id, body):
        item = ledger.lock_item(self.db, item_id)
        if item is None:  # deleted since traversal found it
            raise Problem("not_found")
        return ledger.record(self.db, self.clinic, item, kind=body["kind"],
                             change=ledger.signed_change(body["kind"], body["quantity"]), age=self.age,
                             source="api", lot=body.get("lot"), expires_on=body.get("expires_on"),
                             reason=body.get("reason"), reference=body.get("reference"), now=self.now)

    def accept_batch(self, body):
        from clinicrecords.inventory import batches

        return batches.accept(self.db, self.clinic, body["items"], self.age,
                              batches.ShrinkRule.from_settings(self.request.registry.settings),
                              reference=body.get("reference"), now=self.now)

    def list(self, query, linked_only=False):
        statement = select(InventoryItem)
        if linked_only:
            statement = statement.where(InventoryItem.linked.is_(True))
        if query.get("updated_since"):
            statement = statement.where(InventoryItem.updated_at >= query["updated_since"])
        return keyset_page(self.request, self.db, statement, (InventoryItem.created_at, InventoryItem.id), query)


def inventory_service_factory(context, request):
    from pyramid.traversal import find_interface

    from clinicrecords.clinics.resources import ClinicResource

    return InventoryService(request, find_interface(context, ClinicResource).clinic)


# The till's staff actions as the operator commands print them (`stock set`, `till report|stale`); the sandbox's
# test helpers answer with the same.

def set_stock_as_staff(db, clinic, item_id, quantity, settings):
    age = bands.max_age(settings)
    item = set_stock(db, clinic, item_id, quantity, age)
    return {"item_id": str(item.id), "quantity": item.quantity,
            "band": bands.effective_band(item, till(db), _now(), age, clinic.is_sandbox)}


def report_till_as_staff(db, clinic, settings):
    current_till, changed = report_till(db, clinic, bands.max_age(settings))
    return {"clinic_id": str(clinic.id), "stale": False, "changed": changed,
            "last_reported_at": current_till.last_reported_at.isoformat()}


def mark_till_stale_as_staff(db, clinic, settings):
    _, changed = mark_till_stale(db, clinic, bands.max_age(settings))
    return {"clinic_id": str(clinic.id), "stale": True, "changed": changed}
