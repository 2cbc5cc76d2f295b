"""Staff commands: stock set, till report|stale, item create|link|unlink; bad input → exit 2, nothing changed."""

import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.clinics.services import open_clinic
from clinicrecords.inventory.models import InventoryItem, TillState
from clinicrecords.listings.models import ListingItem
from tests.inventory.conftest import admin, ok


def _state(world, clinic_id):
    with world.db() as db:
        open_clinic(db, clinic_id)
        items = db.execute(select(InventoryItem.id, InventoryItem.quantity, InventoryItem.linked)
                           .order_by(InventoryItem.id)).all()
        till = db.execute(select(TillState.last_reported_at, TillState.stale_since)).all()
        listed = db.scalar(select(func.count()).select_from(ListingItem).where(ListingItem.clinic_id == clinic_id))
        return items, till, listed


def test_item_create_stock_link_and_till(pharmacy, testapp):
    clinic = str(pharmacy.clinic_id)
    created = ok("item", "create", "--clinic", clinic, "--name", "Paracetamol 500 mg tablets", "--generic-name",
                 "paracetamol", "--brand-name", "Panadol", "--gtin", "5012345678900", "--regulator-number",
                 "PL 00020/0002", "--low-at", "10")
    item_id = created["item_id"]
    assert ok("stock", "set", "--clinic", clinic, item_id, "--quantity", "4") == {
        "item_id": item_id, "quantity": 4, "band": "low"}
    assert ok("item", "link", "--clinic", clinic, item_id) == {"item_id": item_id, "linked": True}
    assert ok("item", "unlink", "--clinic", clinic, item_id) == {"item_id": item_id, "linked": False}
    assert ok("till", "stale", "--clinic", clinic) == {"clinic_id": clinic, "stale": True, "changed": True}
    assert ok("till", "stale", "--clinic", clinic)["changed"] is False
    reported = ok("till", "report", "--clinic", clinic)
    assert reported["stale"] is False and reported["changed"] is True
    item = testapp.get(f"/v1/clinics/{clinic}/inventory/items/{item_id}", headers=pharmacy.headers).json["data"]
    assert (item["quantity"], item["band"], item["linked"], item["low_at"]) == (4, "low", False, 10)


def test_item_create_linked(pharmacy, world):
    ok("item", "create", "--clinic", str(pharmacy.clinic_id), "--name", "Ibuprofen 200 mg", "--linked")
    assert _state(world, pharmacy.clinic_id)[2] == 1


@pytest.mark.parametrize("argv", [
    ("item", "create", "--clinic", "{clinic}", "--name", ""),
    ("item", "create", "--clinic", "{clinic}", "--name", "X" * 201),
    ("item", "create", "--clinic", "{clinic}", "--name", "X", "--gtin", "5012345678901"),
    ("item", "create", "--clinic", "{clinic}", "--name", "X", "--gtin", "12345"),
    ("item", "create", "--clinic", "{clinic}", "--name", "X", "--regulator-number", "PL#1"),
    ("item", "create", "--clinic", "{clinic}", "--name", "X", "--low-at", "-1"),
    ("item", "create", "--clinic", str(uuid.uuid4()), "--name", "X"),
    ("item", "create", "--clinic", "nope", "--name", "X"),
    ("stock", "set", "--clinic", "{clinic}", "{item}", "--quantity", "-1"),
    ("stock", "set", "--clinic", "{clinic}", "{item}", "--quantity", "many"),
    ("stock", "set", "--clinic", "{clinic}", str(uuid.uuid4()), "--quantity", "1"),
    ("stock", "set", "--clinic", str(uuid.uuid4()), "{item}", "--quantity", "1"),
    ("stock", "set", "--clinic", "{clinic}", "{item}"),
    ("item", "link", "--clinic", "{clinic}", str(uuid.uuid4())),
    ("item", "unlink", "--clinic", "{clinic}", "not-a-uuid"),
    ("till", "report", "--clinic", str(uuid.uuid4())),
    ("till", "stale", "--clinic", str(uuid.uuid4())),
    ("till", "stale"),
])
def test_bad_input_changes_nothing(pharmacy, world, argv):
    item_id = pharmacy.till.item(quantity=2, linked=False)
    before = _state(world, pharmacy.clinic_id)
    argv = [a.format(clinic=pharmacy.clinic_id, item=item_id) for a in argv]
    status, result, _ = admin(*argv)
    assert status == 2 and result is None
    assert _state(world, pharmacy.clinic_id) == before
