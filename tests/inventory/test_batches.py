"""Till stock batches: accepted snapshots become adjustments and freshen the till; structurally invalid
batches and suspicious shrinks are 409 batch_rejected (the shrink rule tested at its edge)."""

import datetime
import uuid

import pytest
from sqlalchemy import select

from clinicrecords.clinics.services import open_clinic
from clinicrecords.inventory import batches, ledger
from clinicrecords.inventory.models import StockBatch
from clinicrecords.inventory.services import sweep_stale_tills
from clinicrecords.listings.models import ListingClinic, ListingItem
from clinicrecords.settings import InventorySettings, read_section
from tests.inventory.conftest import AGE

GTIN = "5012345678900"


def _post(testapp, connected, items, status=201, **body):
    return testapp.post_json(f"/v1/clinics/{connected.clinic_id}/inventory/stock-batches", {"items": items, **body},
                             headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())},
                             status=status).json


def _quantities(world, clinic_id, item_ids):
    with world.db() as db:
        open_clinic(db, clinic_id)
        return [(db.get(ledger.InventoryItem, item_id).quantity, ledger.ledger_sum(db, item_id))
                for item_id in item_ids]


def test_an_accepted_batch_becomes_adjustments(pharmacy, testapp, world):
    till = pharmacy.till
    by_id = till.item(quantity=10, low_at=5)
    by_gtin = till.item(name="Paracetamol", gtin=GTIN, quantity=2)
    unchanged = till.item(name="Ibuprofen", quantity=4)
    untouched = till.item(name="Morphine", quantity=9)
    answer = _post(testapp, pharmacy, [{"item_id": str(by_id), "quantity": 3}, {"gtin": GTIN, "quantity": 12},
                                       {"item_id": str(unchanged), "quantity": 4}], reference="TILL-7")["data"]
    assert answer["reference"] == "TILL-7" and answer["till_was_stale"] is False
    assert answer["items"] == [{"item_id": str(i), "quantity": q, "change": c}
                               for i, q, c in sorted([(by_id, 3, -7), (by_gtin, 12, 10), (unchanged, 4, 0)])]
    assert _quantities(world, pharmacy.clinic_id, [by_id, by_gtin, unchanged, untouched]) == [
        (3, 3), (12, 12), (4, 4), (9, 9)]
    moves = testapp.get(f"/v1/clinics/{pharmacy.clinic_id}/inventory/items/{by_id}/movements",
                        headers=pharmacy.headers).json["data"]
    assert (moves[-1]["kind"], moves[-1]["change"], moves[-1]["source"], moves[-1]["batch_id"]) == (
        "adjustment", -7, "batch", answer["id"])
    with world.db() as db:
        assert db.scalar(select(ListingItem.band).where(ListingItem.item_id == by_id)) == "low"


def test_a_batch_freshens_a_stale_till(recording_pharmacy, testapp, world):
    till = recording_pharmacy.till
    item_id = till.item(quantity=0)
    till.stale()
    before = len(till.events({"listing.freshness.changed"}))
    answer = _post(testapp, recording_pharmacy, [{"item_id": str(item_id), "quantity": 20}])["data"]
    assert answer["till_was_stale"] is True
    freshness = till.events({"listing.freshness.changed"})
    assert len(freshness) == before + 1 and freshness[-1][2]["stale"] is False
    # Unknown before and after the stock change itself; the till's report then turns unknown into the band
    # the batch left: one event, after the freshness event.
    availability = till.events({"inventory.availability.changed"})
    assert [(data["previous_band"], data["band"]) for _, _, data in availability] == [
        ("out", "unknown"), ("unknown", "in_stock")]
    item = testapp.get(f"/v1/clinics/{recording_pharmacy.clinic_id}/inventory/items/{item_id}",
                       headers=recording_pharmacy.headers).json["data"]
    assert item["band"] == "in_stock"
    with world.db() as db:
        row = db.get(ListingClinic, recording_pharmacy.clinic_id)
        assert row.till_stale_since is None
    # A fresh till's batch announces nothing about freshness.
    _post(testapp, recording_pharmacy, [{"item_id": str(item_id), "quantity": 19}])
    assert len(till.events({"listing.freshness.changed"})) == before + 1


def test_a_batch_goes_stale_by_time_through_the_periodic_sweep(recording_pharmacy, world):
    till = recording_pharmacy.till
    item_id = till.item(quantity=1)
    long_ago = datetime.datetime.now(datetime.UTC) - AGE - datetime.timedelta(minutes=1)
    with world.db() as db:
        clinic = open_clinic(db, recording_pharmacy.clinic_id)
        batches.accept(db, till.projection, clinic, [{"item_id": item_id, "quantity": 2}], AGE, batches.ShrinkRule(),
                       now=long_ago)
    with world.db() as db:
        assert recording_pharmacy.clinic_id in sweep_stale_tills(db, till.projection, AGE)
    assert till.events({"listing.freshness.changed"})[-1][2] == {
        "stale": True, "since": (long_ago + AGE).isoformat()}


def _bad_lines(item_id, other_id):
    return [
        ([], "/items"),
        ([{"item_id": item_id, "quantity": 1}, {"item_id": item_id, "quantity": 2}], "/items/1"),
        ([{"item_id": item_id, "quantity": 1}, {"gtin": GTIN, "quantity": 1}], "/items/1"),
        ([{"item_id": str(uuid.uuid4()), "quantity": 1}], "/items/0/item_id"),
        ([{"gtin": "4006381333931", "quantity": 1}], "/items/0/gtin"),
        ([{"gtin": "5012345678901", "quantity": 1}], "/items/0/gtin"),
        ([{"item_id": other_id, "quantity": -1}], "/items/0/quantity"),
        ([{"item_id": item_id, "gtin": GTIN, "quantity": 1}], "/items/0"),
        ([{"quantity": 1}], "/items/0"),
    ]


@pytest.mark.parametrize("case", range(9))
def test_structurally_invalid_batches_are_rejected(pharmacy, testapp, world, case):
    item_id = pharmacy.till.item(gtin=GTIN, quantity=5)
    other_id = pharmacy.till.item(name="Other", quantity=5)
    lines, pointer = _bad_lines(str(item_id), str(other_id))[case]
    answer = _post(testapp, pharmacy, lines, status=409)
    assert answer["code"] == "batch_rejected" and answer["detail"]
    assert pointer in {e["pointer"] for e in answer["errors"]}
    assert _quantities(world, pharmacy.clinic_id, [item_id, other_id]) == [(5, 5), (5, 5)]
    with world.db() as db:
        open_clinic(db, pharmacy.clinic_id)
        assert db.scalars(select(StockBatch)).all() == []


def test_a_gtin_two_items_share_must_be_sent_by_id(pharmacy, testapp):
    pharmacy.till.item(gtin=GTIN, quantity=1)
    pharmacy.till.item(name="Same code", gtin=GTIN, quantity=1)
    answer = _post(testapp, pharmacy, [{"gtin": GTIN, "quantity": 3}], status=409)
    assert answer["code"] == "batch_rejected" and "item_id" in answer["errors"][0]["message"]


def _baseline(testapp, pharmacy, count):
    """`count` items with stock, accepted in one batch."""
    item_ids = [pharmacy.till.item(name=f"Item {n}") for n in range(count)]
    _post(testapp, pharmacy, [{"item_id": str(i), "quantity": 10} for i in item_ids])
    return item_ids


def test_the_shrink_rule_at_its_edge(pharmacy, testapp, world):
    item_ids = _baseline(testapp, pharmacy, 4)
    # 3 of the 4 items that had stock drop to zero: 75% > 50%.
    zero_three = [{"item_id": str(i), "quantity": 0 if n < 3 else 10} for n, i in enumerate(item_ids)]
    answer = _post(testapp, pharmacy, zero_three, status=409)
    assert answer["code"] == "batch_rejected" and "3 of the 4 items" in answer["detail"]
    assert _quantities(world, pharmacy.clinic_id, item_ids) == [(10, 10)] * 4
    # Exactly half is not more than half: accepted.
    _post(testapp, pharmacy, [{"item_id": str(i), "quantity": 0 if n < 2 else 10} for n, i in enumerate(item_ids)])
    assert _quantities(world, pharmacy.clinic_id, item_ids) == [(0, 0), (0, 0), (10, 10), (10, 10)]
    # Against that batch only 2 items had stock (below the minimum of 4): zeroing both is not considered.
    _post(testapp, pharmacy, [{"item_id": str(i), "quantity": 0} for i in item_ids])


def test_below_the_minimum_the_shrink_rule_is_not_considered(pharmacy, testapp, world):
    item_ids = _baseline(testapp, pharmacy, 3)
    _post(testapp, pharmacy, [{"item_id": str(i), "quantity": 0} for i in item_ids])
    assert _quantities(world, pharmacy.clinic_id, item_ids) == [(0, 0)] * 3


def test_items_left_out_of_a_batch_are_not_zeroed(pharmacy, testapp, world):
    item_ids = _baseline(testapp, pharmacy, 4)
    # Two zeroed, two not listed: 2 of 4 is not more than half.
    _post(testapp, pharmacy, [{"item_id": str(i), "quantity": 0} for i in item_ids[:2]])
    assert _quantities(world, pharmacy.clinic_id, item_ids)[2:] == [(10, 10), (10, 10)]


def test_the_rule_reads_its_settings():
    rule = batches.ShrinkRule.from_settings(read_section(InventorySettings, {
        "inventory.batch_max_zeroed_share": "0.25", "inventory.batch_shrink_min_items": "2"}))
    assert rule == batches.ShrinkRule(0.25, 2)
    previous = {"a": 1, "b": 1, "c": 1, "d": 1, "e": 0}
    assert batches.shrink_reason(rule, previous, {"a": 0}) is None  # 1 of 4 = 25%: not more
    assert "2 of the 4" in batches.shrink_reason(rule, previous, {"a": 0, "b": 0, "e": 0})
    assert batches.shrink_reason(batches.ShrinkRule(), {"a": 1}, {"a": 0}) is None


def test_a_batch_needs_the_write_permission(world, testapp):
    reader = world.connected(scopes={"inventory.items:read", "inventory.stock:read"})
    answer = _post(testapp, reader, [], status=403)
    assert answer["code"] == "scope_missing" and "inventory.stock:write" in answer["detail"]
