"""The inventory service built from a plain scope (no request), over a real clinic."""

import datetime

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.inventory.batches import ShrinkRule
from clinicrecords.inventory.services import InventoryService, network_projection
from tests.common.scopes import clinic_session, plain_cursors, scope_over
from tests.inventory.conftest import AGE, Till


@pytest.fixture
def till(world):
    till = Till(world, world.clinic("Harbour Pharmacy", kind="pharmacy"))
    till.report()
    return till


def _service(registry, db, clinic, now=None):
    return InventoryService(scope_over(db, clinic), network_projection(registry), AGE, ShrinkRule(),
                            plain_cursors(registry), now=now)


def test_bands_follow_the_scope_s_till(world, registry, till):
    low, hidden = till.item(quantity=3, low_at=5), till.item(name="Unlisted", quantity=9, linked=False)
    with clinic_session(world, till.clinic_id) as (db, clinic):
        inventory = _service(registry, db, clinic)
        assert inventory.band(inventory.get(low)) == "low" and not inventory.stale()
        assert [i.id for i in inventory.list({"limit": 10}, linked_only=True).items] == [low]
        assert inventory.get(hidden, linked_only=True) is None
        later = _service(registry, db, clinic, now=datetime.datetime.now(datetime.UTC) + 2 * AGE)
        assert later.stale() and later.band(later.get(low)) == "unknown"


def test_movements_are_recorded_and_refused_through_the_service(world, registry, till):
    item_id = till.item(quantity=2)
    with clinic_session(world, till.clinic_id) as (db, clinic):
        inventory = _service(registry, db, clinic)
        movement = inventory.record_movement(item_id, {"kind": "receipt", "quantity": 5})
        assert (movement.quantity_after, movement.source) == (7, "api")
        with pytest.raises(Problem) as refused:
            inventory.record_movement(item_id, {"kind": "sale", "quantity": 8})
        assert refused.value.code == "insufficient_stock"
        assert [m.change for m in inventory.movements(item_id, {"limit": 10}).items][-1] == 5
        with pytest.raises(Problem) as kept:
            inventory.delete(item_id)
        assert kept.value.code == "item_has_stock"
