"""Inventory events, recorded in the change's transaction. Every clinic here is `recording_pharmacy`."""

import datetime
import uuid

from clinicrecords.inventory.services import sweep_stale_tills
from tests.inventory.conftest import AGE

AVAILABILITY = "inventory.availability.changed"
FRESHNESS = "listing.freshness.changed"


def test_item_created_and_updated(recording_pharmacy):
    till = recording_pharmacy.till
    item_id = till.item(linked=False)
    till.link(item_id)
    till.link(item_id)  # no change, no event
    till.link(item_id, linked=False)
    assert till.events({"inventory.item.created", "inventory.item.updated"}) == [
        ("inventory.item.created", item_id, {"id": str(item_id)}),
        ("inventory.item.updated", item_id, {"id": str(item_id)}),
        ("inventory.item.updated", item_id, {"id": str(item_id)}),
    ]


def test_availability_changes_only_when_the_band_changes(recording_pharmacy):
    till = recording_pharmacy.till
    item_id = till.item(low_at=5)
    for quantity in (50, 40, 5, 3, 0, 0, 7):
        till.stock(item_id, quantity)
    assert [data for _, _, data in till.events({AVAILABILITY})] == [
        {"id": str(item_id), "band": "in_stock", "previous_band": "out"},
        {"id": str(item_id), "band": "low", "previous_band": "in_stock"},
        {"id": str(item_id), "band": "out", "previous_band": "low"},
        {"id": str(item_id), "band": "in_stock", "previous_band": "out"},
    ]
    assert {subject for _, subject, _ in till.events({AVAILABILITY})} == {item_id}


def test_no_availability_event_while_the_till_is_stale(recording_pharmacy):
    till = recording_pharmacy.till
    item_id = till.item(quantity=10)
    till.stale()
    till.stock(item_id, 0)
    assert [data["band"] for _, _, data in till.events({AVAILABILITY})] == ["in_stock"]


def test_freshness_changes_once_per_change(recording_pharmacy):
    till, clinic_id = recording_pharmacy.till, recording_pharmacy.clinic_id
    # The fixture's first report: from never reported (unknown) to fresh.
    assert [data["stale"] for _, _, data in till.events({FRESHNESS})] == [False]
    till.stale()
    till.stale()
    till.report()
    till.report()
    events = till.events({FRESHNESS})[1:]
    assert [(subject, data["stale"]) for _, subject, data in events] == [(clinic_id, True), (clinic_id, False)]
    assert all(datetime.datetime.fromisoformat(data["since"]) for _, _, data in events)


def test_a_silent_till_is_announced_once_by_the_sweep(recording_pharmacy, world):
    till, clinic_id = recording_pharmacy.till, recording_pharmacy.clinic_id
    reported = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=2)
    till.report(now=reported)
    now = datetime.datetime.now(datetime.UTC)
    for _ in range(2):
        with world.db() as db:
            announced = sweep_stale_tills(db, till.projection, AGE, now=now)
    events = till.events({FRESHNESS})
    assert clinic_id not in announced  # the second sweep found nothing left to announce
    assert [data for _, _, data in events][-1] == {"stale": True, "since": (reported + AGE).isoformat()}
    assert [data["stale"] for _, _, data in events].count(True) == 1


def test_a_report_after_an_unannounced_silence_records_both_changes(recording_pharmacy):
    till = recording_pharmacy.till
    before = len(till.events({FRESHNESS}))
    till.report(now=datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1))
    till.report()
    stale, fresh = [data["stale"] for _, _, data in till.events({FRESHNESS})][before:]
    assert (stale, fresh) == (True, False)


def test_events_carry_no_quantity_or_record(recording_pharmacy):
    till = recording_pharmacy.till
    item_id = till.item(quantity=3)
    for _type, subject, data in till.events():
        assert isinstance(subject, uuid.UUID)
        assert "quantity" not in data and "name" not in data
    assert item_id
