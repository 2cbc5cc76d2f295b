"""Keeping the network projection (clinicrecords.listings.models) in step with the clinics' records.

Every function runs in the caller's transaction, so a stock, link or till change and its projection
commit together. `rebuild` recreates the whole projection from the clinics' schemas (`listings reindex`).
"""

from sqlalchemy import delete
from sqlalchemy.dialects.postgresql import insert

from clinicrecords.clinics.services import list_clinics
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.listings.models import ListingClinic, ListingItem, ListingTerm


def listable(clinic):
    """Pharmacies list their items; a sandbox lists its seeded ones to its own workspace's test keys."""
    return clinic.kind == "pharmacy" or clinic.sandbox_of_workspace_id is not None


def terms_of(item):
    return sorted({name.strip().lower() for name in (item.name, item.generic_name, item.brand_name)
                   if name and name.strip()})


def _coordinate(value):
    return float(value) if value is not None else None


def _clinic_values(clinic, till):
    return {
        "clinic_id": clinic.id, "display_name": clinic.name, "lat": _coordinate(clinic.lat),
        "lng": _coordinate(clinic.lng), "sandbox_workspace_id": clinic.sandbox_of_workspace_id,
        "till_reported_at": till.last_reported_at if till is not None else None,
        "till_stale_since": till.stale_since if till is not None else None,
    }


def _item_values(clinic, item, band):
    return {
        "clinic_id": clinic.id, "item_id": item.id, "name": item.name, "generic_name": item.generic_name,
        "brand_name": item.brand_name, "terms": terms_of(item), "gtin": item.gtin,
        "regulator_numbers": list(item.regulator_numbers or ()), "band": band,
        "stock_changed_at": item.stock_changed_at, "lat": _coordinate(clinic.lat), "lng": _coordinate(clinic.lng),
    }


def sync_clinic(db, clinic, till):
    """The clinic's row: name, location and till freshness. Every clinic with a till has one."""
    values = _clinic_values(clinic, till)
    statement = insert(ListingClinic).values(**values)
    db.execute(statement.on_conflict_do_update(
        index_elements=[ListingClinic.clinic_id],
        set_={name: statement.excluded[name] for name in values if name != "clinic_id"}))


def _add_terms(db, terms):
    if terms:
        db.execute(insert(ListingTerm).values([{"term": term} for term in terms]).on_conflict_do_nothing())


def sync_item(db, clinic, item, till, band):
    """A linked item of a listable clinic has exactly one row; any other item has none. `band` is the item's
    stock band (inventory's rule), staleness not applied."""
    sync_clinic(db, clinic, till)
    if not (listable(clinic) and item.linked):
        db.execute(delete(ListingItem).where(ListingItem.clinic_id == clinic.id, ListingItem.item_id == item.id))
        return
    values = _item_values(clinic, item, band)
    _add_terms(db, values["terms"])
    statement = insert(ListingItem).values(**values)
    db.execute(statement.on_conflict_do_update(
        index_elements=[ListingItem.clinic_id, ListingItem.item_id],
        set_={name: statement.excluded[name] for name in values if name not in ("clinic_id", "item_id")}))


def remove_item(db, clinic, item_id):
    """A deleted item leaves the network at once."""
    db.execute(delete(ListingItem).where(ListingItem.clinic_id == clinic.id, ListingItem.item_id == item_id))


def rebuild(db, read_till, read_linked_items, batch_size=1000):
    """Recreate the projection from every clinic's schema, one clinic at a time, in one transaction (readers
    keep the old projection until it commits). Returns counts.

    The clinic's records are read by the inventory's functions, on the session bound to each clinic in turn:
    `read_till(db)` (the till's row or None: no till, no projection row) and `read_linked_items(db)` ((item
    row, stock band) for each linked item)."""
    db.flush()
    db.execute(delete(ListingItem))
    db.execute(delete(ListingClinic))
    db.execute(delete(ListingTerm))
    counts = {"clinics": 0, "items": 0}
    for clinic in list_clinics(db, include_sandboxes=True):
        _project(db, clinic, read_till, read_linked_items, batch_size, counts)
    return counts


def resync_clinic(db, clinic, read_till, read_linked_items, batch_size=1000):
    """One clinic's rows made again from its schema (after its records were restored to an earlier time): its
    items and its clinic row replaced, as `rebuild` makes them. Returns counts."""
    db.flush()
    db.execute(delete(ListingItem).where(ListingItem.clinic_id == clinic.id))
    db.execute(delete(ListingClinic).where(ListingClinic.clinic_id == clinic.id))
    counts = {"clinics": 0, "items": 0}
    _project(db, clinic, read_till, read_linked_items, batch_size, counts)
    return counts


def _project(db, clinic, read_till, read_linked_items, batch_size, counts):
    bind_to_clinic(db, clinic.id)
    till = read_till(db)
    if till is None:
        return
    sync_clinic(db, clinic, till)
    counts["clinics"] += 1
    if not listable(clinic):
        return
    rows = [_item_values(clinic, item, band) for item, band in read_linked_items(db)]
    _add_terms(db, sorted({term for row in rows for term in row["terms"]}))
    for start in range(0, len(rows), batch_size):
        db.execute(insert(ListingItem).values(rows[start:start + batch_size]))
    counts["items"] += len(rows)


