"""What the inventory tells the network projection (the listings context's, an `INetworkProjection` the
inventory's callers pass in): its items with their stock band, kept in step inside each change, and read
back whole for `listings reindex`."""

from sqlalchemy import select

from clinicrecords.inventory import bands
from clinicrecords.inventory.interfaces import INetworkProjection
from clinicrecords.inventory.models import InventoryItem, TillState


def network_projection(registry):
    """The projection the listings context registered."""
    return registry.getUtility(INetworkProjection)


def sync_item(db, projection, clinic, item, till):
    projection.sync_item(db, clinic, item, till, bands.stock_band(item.quantity, item.low_at))


def till_row(db):
    """The till of the clinic the session is bound to, or None. A Core row, not an ORM entity: till_state has
    the same primary key in every clinic's schema."""
    return db.execute(select(TillState.__table__)).first()


def linked_items_with_bands(db):
    """(item row, stock band) for each linked item of the clinic the session is bound to."""
    items = db.execute(select(InventoryItem.__table__).where(InventoryItem.linked.is_(True))).all()
    return [(item, bands.stock_band(item.quantity, item.low_at)) for item in items]
