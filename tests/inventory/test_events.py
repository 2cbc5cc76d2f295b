"""Inventory events, recorded in the change's transaction. Every clinic here is `recording_pharmacy`."""

import datetime
import uuid

from sqlalchemy import select

from clinicrecords.events.models import WebhookDelivery
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


def test_no_availability_event_for_stock_changes_while_the_till_is_stale(recording_pharmacy):
    till = recording_pharmacy.till
    item_id = till.item(quantity=10)
    till.stale()
    till.stock(item_id, 0)
    till.stock(item_id, 3)
    assert [data["band"] for _, _, data in till.events({AVAILABILITY})] == ["in_stock", "unknown"]


def _availability(till, since=0):
    return [(subject, data["previous_band"], data["band"]) for _, subject, data in till.events({AVAILABILITY})[since:]]


def test_bands_turning_unknown_with_a_stale_till_and_back_are_announced_per_item(recording_pharmacy, world,
                                                                                  testapp):
    """Spec: a change of band emits inventory.availability.changed, also when a stale till turns every band
    unknown and when it reports again; one event per item whose band changed, after the freshness event."""
    till, clinic_id = recording_pharmacy.till, recording_pharmacy.clinic_id
    endpoint_id, _ = world.webhook(clinic_id=clinic_id, types=[AVAILABILITY])
    stocked, low, empty = till.item(quantity=10, low_at=5), till.item(quantity=2, low_at=5), till.item(low_at=5)
    before = len(till.events({AVAILABILITY}))
    till.stale()
    assert sorted(_availability(till, before)) == sorted([(stocked, "in_stock", "unknown"),
                                                          (low, "low", "unknown"), (empty, "out", "unknown")])
    till.stock(empty, 4)  # while stale: readers still see unknown, so no event
    till.stale()  # already stale: nothing changes
    till.report()
    assert sorted(_availability(till, before + 3)) == sorted([(stocked, "unknown", "in_stock"),
                                                              (low, "unknown", "low"), (empty, "unknown", "low")])
    kinds = [(event_type, data.get("stale")) for event_type, _, data in till.events({AVAILABILITY, FRESHNESS})]
    assert kinds[-8:] == [(FRESHNESS, True)] + [(AVAILABILITY, None)] * 3 + [(FRESHNESS, False)] + \
        [(AVAILABILITY, None)] * 3
    # Through the API: the feed of a key that may read availability, and the endpoint filtered to it.
    feed = testapp.get(f"/v1/clinics/{clinic_id}/events", {"limit": 200}, headers=recording_pharmacy.headers).json
    unknown = [e["data"] for e in feed["events"] if e["type"] == AVAILABILITY and e["data"]["band"] == "unknown"]
    assert sorted(data["id"] for data in unknown) == sorted(map(str, (stocked, low, empty)))
    with world.db() as db:
        delivered = db.scalars(select(WebhookDelivery.type).where(WebhookDelivery.endpoint_id == endpoint_id)).all()
    # Registered before the items existed: it was owed every availability event, these included.
    assert set(delivered) == {AVAILABILITY} and len(delivered) == len(till.events({AVAILABILITY}))


def test_a_silent_till_s_bands_turn_unknown_when_the_sweep_announces_it(recording_pharmacy, world):
    till = recording_pharmacy.till
    item_id = till.item(quantity=10, low_at=5)
    till.report(now=datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=2))
    before = len(till.events({AVAILABILITY}))
    with world.db() as db:
        sweep_stale_tills(db, till.projection, AGE, now=datetime.datetime.now(datetime.UTC))
    assert _availability(till, before) == [(item_id, "in_stock", "unknown")]


def test_a_movement_after_an_unannounced_silence_announces_it_first(recording_pharmacy):
    """The bands were already unknown to readers: the event says so with the band they last saw, before the
    movement that readers cannot see while the till is silent."""
    till = recording_pharmacy.till
    item_id = till.item(quantity=10, low_at=5)
    till.report(now=datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1))
    before = len(till.events({AVAILABILITY}))
    till.stock(item_id, 3)  # silent by time, not yet announced
    assert _availability(till, before) == [(item_id, "in_stock", "unknown")]
    assert [data["stale"] for _, _, data in till.events({FRESHNESS})][-1] is True
    till.report()
    assert _availability(till, before + 1) == [(item_id, "unknown", "low")]


def test_a_till_that_never_reported_emits_no_band_change_when_marked_stale(world):
    from tests.inventory.conftest import Till

    clinic_id = world.clinic("Quiet Pharmacy", kind="pharmacy")
    world.webhook(clinic_id=clinic_id)
    till = Till(world, clinic_id)
    item_id = till.item(quantity=10)
    till.stale()  # readers already saw unknown: nothing changes for them
    assert till.events({AVAILABILITY}) == []
    till.report()  # the first report: unknown to the item's band
    assert _availability(till) == [(item_id, "unknown", "in_stock")]


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
