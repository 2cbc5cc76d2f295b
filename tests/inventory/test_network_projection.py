"""The inventory asks for the network projection by interface (`INetworkProjection`, registered by listings)
and keeps it in step in the transaction of each change: what the change's transaction undoes, the
projection never shows."""

import pytest
from sqlalchemy import select
from zope.interface.verify import verifyObject

from clinicrecords.clinics.services import open_clinic
from clinicrecords.inventory import services
from clinicrecords.inventory.interfaces import INetworkProjection
from clinicrecords.listings.models import ListingItem
from tests.inventory.conftest import AGE, Till


class Undone(Exception):
    pass


def _listed(world, clinic_id):
    with world.db() as db:
        return {(row.item_id, row.band) for row in db.execute(
            select(ListingItem.item_id, ListingItem.band).where(ListingItem.clinic_id == clinic_id))}


def test_listings_provides_the_projection_the_inventory_asks_for(registry):
    verifyObject(INetworkProjection, services.network_projection(registry))


def test_an_inventory_change_and_its_projection_commit_or_roll_back_together(world):
    till = Till(world, world.clinic("Harbour Pharmacy", kind="pharmacy"))
    till.report()
    item_id = till.item(quantity=30)
    assert _listed(world, till.clinic_id) == {(item_id, "in_stock")}
    with pytest.raises(Undone), world.db() as db:
        clinic = open_clinic(db, till.clinic_id)
        services.set_stock(db, till.projection, clinic, item_id, 0, AGE)
        services.create_item(db, till.projection, clinic, name="Gauze", linked=True)
        assert len(_rows_in(db, till.clinic_id)) == 2  # the same transaction already sees both
        raise Undone
    assert _listed(world, till.clinic_id) == {(item_id, "in_stock")}
    till.stock(item_id, 0)
    assert _listed(world, till.clinic_id) == {(item_id, "out")}


def _rows_in(db, clinic_id):
    return db.scalars(select(ListingItem.item_id).where(ListingItem.clinic_id == clinic_id)).all()
