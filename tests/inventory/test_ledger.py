"""The stock ledger: movements through HTTP, every refusal, the invariant quantity == sum of movements (also
under concurrent movements), item deletion, and the sandbox's seeded ledgers."""

import datetime
import threading
import uuid

import pytest
import webtest
from sqlalchemy import func, select

from clinicrecords.clinics.services import open_clinic
from clinicrecords.inventory import ledger
from clinicrecords.inventory.models import InventoryItem, StockMovement
from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS, SANDBOX_ITEMS, MovementCreate
from clinicrecords.inventory.seed import EXPIRED_LOT, SANDBOX_LEDGERS, movement_id
from clinicrecords.listings.models import ListingItem
from tests.inventory.conftest import Till, ok

TODAY = datetime.datetime.now(datetime.UTC).date()


def _url(connected, item_id, tail="/movements"):
    return f"/v1/clinics/{connected.clinic_id}/inventory/items/{item_id}{tail}"


def _write(connected):
    return {**connected.headers, "Idempotency-Key": str(uuid.uuid4())}


def move(testapp, connected, item_id, status=201, **body):
    return testapp.post_json(_url(connected, item_id), body, headers=_write(connected), status=status).json


def ledger_state(world, clinic_id, item_id):
    """(cached quantity, sum of movements) read straight from the clinic's schema."""
    with world.db() as db:
        open_clinic(db, clinic_id)
        quantity = db.scalar(select(InventoryItem.quantity).where(InventoryItem.id == item_id))
        return quantity, ledger.ledger_sum(db, item_id)


def test_movements_add_up_and_are_listed(pharmacy, testapp, world):
    item_id = pharmacy.till.item()
    receipt = move(testapp, pharmacy, item_id, kind="receipt", quantity=30, lot="L1", expires_on="2030-01-31",
                   reference="PO-1")["data"]
    assert (receipt["kind"], receipt["quantity"], receipt["change"], receipt["quantity_after"]) == (
        "receipt", 30, 30, 30)
    assert (receipt["lot"], receipt["expires_on"], receipt["source"], receipt["reference"]) == (
        "L1", "2030-01-31", "api", "PO-1")
    move(testapp, pharmacy, item_id, kind="dispense", quantity=4, lot="L1")
    move(testapp, pharmacy, item_id, kind="sale", quantity=1)
    move(testapp, pharmacy, item_id, kind="transfer_in", quantity=5)
    move(testapp, pharmacy, item_id, kind="transfer_out", quantity=2, lot="L1")
    move(testapp, pharmacy, item_id, kind="write_off", quantity=3, reason="broken")
    move(testapp, pharmacy, item_id, kind="adjustment", quantity=-1, reason="count")
    move(testapp, pharmacy, item_id, kind="adjustment", quantity=2)
    listed = testapp.get(_url(pharmacy, item_id), headers=pharmacy.headers).json["data"]
    assert [m["change"] for m in listed] == [30, -4, -1, 5, -2, -3, -1, 2]
    assert [m["quantity_after"] for m in listed] == [30, 26, 25, 30, 28, 25, 24, 26]
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (26, 26)
    item = testapp.get(_url(pharmacy, item_id, ""), headers=pharmacy.headers).json["data"]
    assert (item["quantity"], item["band"]) == (26, "in_stock")
    page = testapp.get(_url(pharmacy, item_id), {"limit": 3}, headers=pharmacy.headers).json
    assert len(page["data"]) == 3 and page["has_more"] is True


def test_write_off_without_reason_is_400_reason_required(pharmacy, testapp, world):
    item_id = pharmacy.till.item(quantity=5)
    for body in ({}, {"reason": ""}, {"reason": "   "}):
        answer = move(testapp, pharmacy, item_id, status=400, kind="write_off", quantity=1, **body)
        assert answer["code"] == "reason_required" and answer["errors"][0]["pointer"] == "/reason"
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (5, 5)
    assert move(testapp, pharmacy, item_id, kind="write_off", quantity=1, reason=" expired ")["data"][
        "reason"] == "expired"


def test_a_movement_the_stock_cannot_cover_is_409_insufficient_stock(pharmacy, testapp, world):
    item_id = pharmacy.till.item()
    move(testapp, pharmacy, item_id, kind="receipt", quantity=5, lot="A")
    move(testapp, pharmacy, item_id, kind="receipt", quantity=5, lot="B")
    for body in ({"kind": "dispense", "quantity": 11}, {"kind": "adjustment", "quantity": -11},
                 {"kind": "write_off", "quantity": 11, "reason": "lost"},
                 {"kind": "transfer_out", "quantity": 11},
                 # The item has 10, but lot A only 5.
                 {"kind": "sale", "quantity": 6, "lot": "A"}, {"kind": "dispense", "quantity": 1, "lot": "C"}):
        assert move(testapp, pharmacy, item_id, status=409, **body)["code"] == "insufficient_stock", body
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (10, 10)
    move(testapp, pharmacy, item_id, kind="sale", quantity=5, lot="A")
    move(testapp, pharmacy, item_id, kind="dispense", quantity=5)
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (0, 0)


def test_transferring_expired_stock_is_409(pharmacy, testapp, world):
    item_id = pharmacy.till.item()
    yesterday = (TODAY - datetime.timedelta(days=1)).isoformat()
    move(testapp, pharmacy, item_id, kind="receipt", quantity=5, lot="OLD", expires_on=yesterday)
    move(testapp, pharmacy, item_id, kind="receipt", quantity=5, lot="NEW", expires_on=TODAY.isoformat())
    answer = move(testapp, pharmacy, item_id, status=409, kind="transfer_out", quantity=1, lot="OLD")
    assert answer["code"] == "expired_stock_not_transferable" and "OLD" in answer["detail"]
    # An expiry stated on the transfer itself counts too, with or without a lot.
    for body in ({"lot": "NEW", "expires_on": yesterday}, {"expires_on": yesterday}):
        assert move(testapp, pharmacy, item_id, status=409, kind="transfer_out", quantity=1, **body)[
            "code"] == "expired_stock_not_transferable"
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (10, 10)
    # Stock expiring today is still in date; expired stock is written off, not transferred.
    move(testapp, pharmacy, item_id, kind="transfer_out", quantity=1, lot="NEW")
    move(testapp, pharmacy, item_id, kind="write_off", quantity=5, lot="OLD", reason="expired")
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (4, 4)


@pytest.mark.parametrize("body, pointer", [
    ({"kind": "adjustment", "quantity": 0}, "/quantity"),
    ({"kind": "receipt", "quantity": 0}, "/quantity"),
    ({"kind": "dispense", "quantity": -2}, "/quantity"),
    ({"kind": "receipt", "quantity": "2"}, "/quantity"),
    ({"kind": "gift", "quantity": 2}, "/kind"),
    ({"kind": "receipt"}, "/quantity"),
    ({"kind": "receipt", "quantity": 2, "lot": ""}, "/lot"),
    ({"kind": "receipt", "quantity": 2, "expires_on": "soon"}, "/expires_on"),
])
def test_malformed_movements_are_400(pharmacy, testapp, body, pointer):
    item_id = pharmacy.till.item(quantity=5)
    answer = move(testapp, pharmacy, item_id, status=400, **body)
    assert answer["code"] == "invalid_request" and pointer in {e["pointer"] for e in answer["errors"]}


def test_a_movement_needs_an_idempotency_key_and_the_write_permission(world, testapp, pharmacy):
    item_id = pharmacy.till.item(quantity=5)
    answer = testapp.post_json(_url(pharmacy, item_id), MovementCreate.EXAMPLE, headers=pharmacy.headers,
                               status=400).json
    assert "Idempotency-Key" in answer["detail"]
    headers = _write(pharmacy)
    first = testapp.post_json(_url(pharmacy, item_id), MovementCreate.EXAMPLE, headers=headers, status=201)
    again = testapp.post_json(_url(pharmacy, item_id), MovementCreate.EXAMPLE, headers=headers, status=201)
    assert first.json["data"]["id"] == again.json["data"]["id"]
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (29, 29)

    reader = world.connected(scopes={"inventory.items:read", "inventory.stock:read"})
    item_id = Till(world, reader.clinic_id).item()
    answer = testapp.post_json(_url(reader, item_id), MovementCreate.EXAMPLE, headers=_write(reader), status=403)
    assert answer.json["code"] == "scope_missing" and "inventory.stock:write" in answer.json["detail"]


def test_a_write_only_key_never_sees_exact_quantities(world, testapp):
    writer = world.connected(scopes={"inventory.stock:write"})
    with world.db() as db:
        clinic = open_clinic(db, writer.clinic_id)
        from clinicrecords.inventory import services

        item_id = services.create_item(db, services.network_projection(world.registry), clinic, name="Gauze").id
    created = move(testapp, writer, item_id, kind="receipt", quantity=3)["data"]
    assert created["change"] == 3 and "quantity_after" not in created
    answer = move(testapp, writer, item_id, status=409, kind="dispense", quantity=4)
    assert answer["code"] == "insufficient_stock" and "3" not in answer["detail"]
    answer = testapp.get(_url(writer, item_id), headers=writer.headers, status=403).json
    assert answer["code"] == "scope_missing" and "inventory.stock:read" in answer["detail"]


@pytest.mark.commits  # movements race from threads
def test_concurrent_movements_never_drive_an_item_below_zero(app, pharmacy, world):
    # As many threads as the test pool's connections allow; more dispenses than stock.
    item_id = pharmacy.till.item(quantity=3)
    threads_count = 4
    barrier, results = threading.Barrier(threads_count), []

    def dispense():
        client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        barrier.wait()
        results.append(client.post_json(_url(pharmacy, item_id), {"kind": "dispense", "quantity": 1},
                                        headers=_write(pharmacy), expect_errors=True))

    threads = [threading.Thread(target=dispense) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(r.status_int for r in results) == [201] * 3 + [409]
    assert {r.json["code"] for r in results if r.status_int == 409} == {"insufficient_stock"}
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (0, 0)
    # Each success saw the stock its predecessor left: the running quantities are 2, 1, 0, once each.
    assert sorted(r.json["data"]["quantity_after"] for r in results if r.status_int == 201) == [0, 1, 2]


def test_band_changes_follow_the_ledger(recording_pharmacy, testapp):
    till = recording_pharmacy.till
    item_id = till.item(quantity=10, low_at=5)
    move(testapp, recording_pharmacy, item_id, kind="dispense", quantity=4)  # 6: still in stock
    move(testapp, recording_pharmacy, item_id, kind="dispense", quantity=1)  # 5: low
    move(testapp, recording_pharmacy, item_id, kind="write_off", quantity=5, reason="recalled")  # out
    changes = [data for _, subject, data in till.events({"inventory.availability.changed"}) if subject == item_id]
    assert [(c["previous_band"], c["band"]) for c in changes] == [
        ("out", "in_stock"), ("in_stock", "low"), ("low", "out")]
    till.stale()  # out → unknown, for every item
    move(testapp, recording_pharmacy, item_id, kind="receipt", quantity=50)  # unknown → unknown: no event
    changes = [data for _, subject, data in till.events({"inventory.availability.changed"}) if subject == item_id]
    assert [(c["previous_band"], c["band"]) for c in changes[3:]] == [("out", "unknown")]


def test_the_projection_follows_the_ledger(pharmacy, testapp, world):
    item_id = pharmacy.till.item(quantity=10, low_at=5)
    move(testapp, pharmacy, item_id, kind="sale", quantity=10)
    with world.db() as db:
        assert db.scalar(select(ListingItem.band).where(ListingItem.item_id == item_id)) == "out"


def test_deleting_items(recording_pharmacy, testapp, world):
    pharmacy, till = recording_pharmacy, recording_pharmacy.till
    stocked = till.item(quantity=3)
    answer = testapp.delete(_url(pharmacy, stocked, ""), headers=pharmacy.headers, status=409).json
    assert answer["code"] == "item_has_stock"
    move(testapp, pharmacy, stocked, kind="sale", quantity=3)
    answer = testapp.delete(_url(pharmacy, stocked, ""), headers=pharmacy.headers, status=409).json
    assert answer["code"] == "item_has_history"
    unused = till.item()
    with world.db() as db:
        assert db.scalar(select(func.count()).select_from(ListingItem).where(ListingItem.item_id == unused)) == 1
    testapp.delete(_url(pharmacy, unused, ""), headers=pharmacy.headers, status=204)
    testapp.get(_url(pharmacy, unused, ""), headers=pharmacy.headers, status=404)
    testapp.delete(_url(pharmacy, unused, ""), headers=pharmacy.headers, status=404)
    with world.db() as db:
        assert db.scalar(select(func.count()).select_from(ListingItem).where(ListingItem.item_id == unused)) == 0
    assert till.events({"inventory.item.deleted"}) == [("inventory.item.deleted", unused, {"id": str(unused)})]
    reader = world.connected(scopes={"inventory.items:read", "inventory.stock:read"})
    assert testapp.delete(_url(reader, uuid.uuid4(), ""), headers=reader.headers,
                          status=404).json["code"] == "not_found"



def test_a_delete_retried_with_its_idempotency_key_replays_the_first_answer(pharmacy, testapp):
    """A retry after a lost answer must not read like a refusal: the first 204 is replayed, not a 404."""
    unused = pharmacy.till.item()
    headers = _write(pharmacy)
    first = testapp.delete(_url(pharmacy, unused, ""), headers=headers, status=204)
    again = testapp.delete(_url(pharmacy, unused, ""), headers=headers, status=204)
    assert again.body == first.body == b"" and again.headers["Idempotent-Replayed"] == "true"
    testapp.delete(_url(pharmacy, unused, ""), headers=_write(pharmacy), status=404)  # a new key runs again


def test_stock_set_is_an_adjustment_movement(pharmacy, testapp, world):
    item_id = pharmacy.till.item()
    ok("stock", "set", "--clinic", str(pharmacy.clinic_id), str(item_id), "--quantity", "7")
    ok("stock", "set", "--clinic", str(pharmacy.clinic_id), str(item_id), "--quantity", "7")  # no change
    ok("stock", "set", "--clinic", str(pharmacy.clinic_id), str(item_id), "--quantity", "2")
    listed = testapp.get(_url(pharmacy, item_id), headers=pharmacy.headers).json["data"]
    assert [(m["kind"], m["change"], m["source"]) for m in listed] == [
        ("adjustment", 7, "staff"), ("adjustment", -5, "staff")]
    assert ledger_state(world, pharmacy.clinic_id, item_id) == (2, 2)


def test_the_sandbox_ledgers_add_up_to_the_seeded_stock(world, testapp):
    workspace_id, sandbox_clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    headers = {"Authorization": f"Bearer {key}"}
    base = f"/v1/clinics/{sandbox_clinic_id}/inventory/items"
    for key_name, *_, quantity, _low_at in SANDBOX_ITEMS:
        item_id = SANDBOX_ITEM_IDS[key_name]
        listed = testapp.get(f"{base}/{item_id}/movements", headers=headers).json["data"]
        assert [m["id"] for m in listed] == [str(movement_id(key_name, n))
                                             for n in range(1, len(SANDBOX_LEDGERS[key_name]) + 1)]
        assert sum(m["change"] for m in listed) == quantity == listed[-1]["quantity_after"]
    with world.db() as db:
        open_clinic(db, sandbox_clinic_id)
        assert db.scalar(select(func.count()).select_from(StockMovement)) == sum(map(len, SANDBOX_LEDGERS.values()))
    # The seeded expired lot: transferring it is refused as documented.
    salbutamol = SANDBOX_ITEM_IDS["salbutamol-inhaler"]
    answer = testapp.post_json(f"{base}/{salbutamol}/movements",
                               {"kind": "transfer_out", "quantity": 1, "lot": EXPIRED_LOT[0]},
                               headers={**headers, "Idempotency-Key": str(uuid.uuid4())}, status=409).json
    assert answer["code"] == "expired_stock_not_transferable"
