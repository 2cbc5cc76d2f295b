"""The clinic's till: its freshness, announced once per change (listing.freshness.changed), and the sweep that
announces tills that fell silent. Each change keeps the network projection (`projection`, an
INetworkProjection) in step in the same transaction.

A change of freshness changes every item's band readers see (unknown while stale), so each announced change is
followed by one inventory.availability.changed per item, in the same transaction (docs/inventory.md)."""

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from clinicrecords import clock
from clinicrecords.clinics.services import open_clinic
from clinicrecords.events.services import emit
from clinicrecords.inventory import bands
from clinicrecords.inventory.models import InventoryItem, TillState

FRESHNESS_CHANGED = "listing.freshness.changed"
AVAILABILITY_CHANGED = "inventory.availability.changed"
_ITEM_BANDS = select(InventoryItem.id, InventoryItem.quantity, InventoryItem.low_at).order_by(
    InventoryItem.created_at, InventoryItem.id)


def till(db):
    """The clinic's till row or None. Always re-read: every clinic's row has the same primary key."""
    return db.execute(select(TillState).execution_options(populate_existing=True)).scalar_one_or_none()


def ensure_till(db):
    db.execute(insert(TillState).values(id=1).on_conflict_do_nothing())
    return till(db)


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
    _announce_bands(db, clinic, stale=True)
    return True


def _announce_bands(db, clinic, stale):
    """Every item's band as readers saw it turned unknown (`stale`), or unknown turned back to its stock band:
    one availability event per item whose band changed, which is every item (a stock band is never unknown)."""
    for item_id, quantity, low_at in db.execute(_ITEM_BANDS):
        band = bands.stock_band(quantity, low_at)
        before, after = (band, "unknown") if stale else ("unknown", band)
        emit(db, clinic.id, AVAILABILITY_CHANGED, item_id, {"id": str(item_id), "band": after,
                                                            "previous_band": before})


def announce_silence(db, projection, clinic, current_till, age, now):
    """A till silent for longer than `age` that nobody announced yet (the sweep runs every minute): announce
    it now, before anything else changes, so every change of freshness and of band has its event, in order.
    Returns whether it was announced."""
    silent = bands.is_stale(current_till, now, age, clinic.is_sandbox)
    if not silent or current_till.stale_since is not None or current_till.last_reported_at is None:
        return False
    _announce_stale(db, clinic, current_till, now, age)
    db.flush()
    projection.sync_clinic(db, clinic, current_till)
    return True


def mark_till_stale(db, projection, clinic, age, now=None):
    """Staff: the till stopped reporting. Returns (till, whether readers saw a change)."""
    current_till = ensure_till(db)
    changed = _announce_stale(db, clinic, current_till, now or clock.now(), age)
    db.flush()
    projection.sync_clinic(db, clinic, current_till)
    return current_till, changed


def report_till(db, projection, clinic, age, now=None):
    """The till reported: fresh again. A silence nobody announced yet is announced first, so every
    change of freshness has exactly one event, in order."""
    now = now or clock.now()
    current_till = ensure_till(db)
    was_stale = bands.is_stale(current_till, now, age, clinic.is_sandbox)
    announce_silence(db, projection, clinic, current_till, age, now)
    current_till.last_reported_at = now
    current_till.stale_since = None
    if was_stale:
        emit(db, clinic.id, FRESHNESS_CHANGED, clinic.id, {"stale": False, "since": now.isoformat()})
        _announce_bands(db, clinic, stale=False)
    db.flush()
    projection.sync_clinic(db, clinic, current_till)
    return current_till, was_stale


def sweep_stale_tills(db, projection, age, now=None):
    """Announce every till that fell silent for longer than `age` (run every minute by the worker).

    Candidates come from the projection's clinic rows in the control schema: no clinic schema is opened
    unless its till actually went stale.
    """
    now = now or clock.now()
    announced = []
    for clinic_id in projection.silent_tills(db, now - age):
        clinic = open_clinic(db, clinic_id)
        current_till = ensure_till(db)
        if bands.is_stale(current_till, now, age) and _announce_stale(db, clinic, current_till, now, age):
            announced.append(clinic_id)
        db.flush()
        projection.sync_clinic(db, clinic, current_till)
        db.expunge(current_till)
    return announced
