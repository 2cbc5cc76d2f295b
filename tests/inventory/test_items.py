"""GET /v1/clinics/{id}/inventory/items: names, codes, and band / quantity only as the grant allows."""

import datetime
import uuid

import pytest

from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS
from tests.inventory.conftest import AGE, Till

ITEMS = "inventory.items:read"
BANDS = "inventory.availability:read"
STOCK = "inventory.stock:read"


def _items(testapp, connected, **params):
    return testapp.get(f"/v1/clinics/{connected.clinic_id}/inventory/items", params,
                       headers=connected.headers).json


@pytest.mark.parametrize("scopes, shown", [
    ({ITEMS}, set()),
    ({ITEMS, BANDS}, {"band", "as_of"}),
    ({ITEMS, STOCK}, {"quantity"}),
    ({ITEMS, BANDS, STOCK}, {"band", "as_of", "quantity"}),
])
def test_band_and_quantity_by_permission(world, testapp, scopes, shown):
    connected = world.connected(scopes=scopes)
    till = Till(world, connected.clinic_id)
    till.report()
    item_id = till.item(generic_name="amoxicillin", brand_name="Amoxil", gtin="5000456012348",
                        regulator_numbers=["pl 00010/0001"], quantity=3, low_at=5)
    [item] = _items(testapp, connected)["data"]
    assert item["id"] == str(item_id)
    assert item["codes"] == {"gtin": "05000456012348", "regulator_numbers": ["PL 00010/0001"]}
    assert (item["name"], item["generic_name"], item["brand_name"]) == (
        "Amoxicillin 500 mg capsules", "amoxicillin", "Amoxil")
    assert {"band", "as_of", "quantity"} & item.keys() == shown
    if "band" in shown:
        assert item["band"] == "low"
    if "quantity" in shown:
        assert item["quantity"] == 3


def test_the_list_needs_inventory_items_read(world, testapp):
    connected = world.connected(scopes={BANDS, STOCK})
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/inventory/items", headers=connected.headers,
                           status=403)
    assert response.json["code"] == "scope_missing" and ITEMS in response.json["detail"]


@pytest.mark.parametrize("quantity, band", [(0, "out"), (1, "low"), (5, "low"), (6, "in_stock")])
def test_thresholds(pharmacy, testapp, quantity, band):
    item_id = pharmacy.till.item(quantity=quantity, low_at=5)
    response = testapp.get(f"/v1/clinics/{pharmacy.clinic_id}/inventory/items/{item_id}",
                           headers=pharmacy.headers)
    assert response.json["data"]["band"] == band


def test_a_stale_till_shows_unknown_never_out(pharmacy, testapp):
    empty = pharmacy.till.item(quantity=0)
    full = pharmacy.till.item(quantity=50)
    bands = lambda: {i["id"]: i["band"] for i in _items(testapp, pharmacy)["data"]}  # noqa: E731
    assert bands() == {str(empty): "out", str(full): "in_stock"}
    pharmacy.till.stale()
    assert bands() == {str(empty): "unknown", str(full): "unknown"}
    pharmacy.till.report()
    assert bands() == {str(empty): "out", str(full): "in_stock"}


def test_a_silent_till_goes_stale_by_time(pharmacy, testapp):
    item_id = pharmacy.till.item(quantity=0)
    pharmacy.till.report(now=datetime.datetime.now(datetime.UTC) - AGE - datetime.timedelta(seconds=5))
    [item] = _items(testapp, pharmacy)["data"]
    assert item["id"] == str(item_id) and item["band"] == "unknown"
    pharmacy.till.report()
    assert _items(testapp, pharmacy)["data"][0]["band"] == "out"


def test_a_till_that_never_reported_is_unknown(world, testapp):
    connected = world.connected()
    Till(world, connected.clinic_id).item(quantity=10)
    assert _items(testapp, connected)["data"][0]["band"] == "unknown"


def test_paging_and_updated_since(pharmacy, testapp):
    ids = [str(pharmacy.till.item(name=f"Item {n}")) for n in range(5)]
    first = _items(testapp, pharmacy, limit=3)
    second = _items(testapp, pharmacy, limit=3, starting_after=first["next_cursor"])
    assert [i["id"] for i in first["data"] + second["data"]] == sorted(ids, key=lambda i: ids.index(i))
    assert not second["has_more"]
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=1)
    assert _items(testapp, pharmacy, updated_since=later.isoformat())["data"] == []


def test_an_unknown_item_is_404(pharmacy, testapp):
    response = testapp.get(f"/v1/clinics/{pharmacy.clinic_id}/inventory/items/{uuid.uuid4()}",
                           headers=pharmacy.headers, status=404)
    assert response.json["code"] == "not_found"


def test_the_sandbox_has_seeded_items_in_every_band(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    listed = testapp.get(f"/v1/clinics/{sandbox_id}/inventory/items", {"limit": 100},
                         headers={"Authorization": f"Bearer {key}"}).json["data"]
    by_id = {item["id"]: item for item in listed}
    assert set(by_id) == {str(i) for i in SANDBOX_ITEM_IDS.values()}
    bands = {by_id[str(SANDBOX_ITEM_IDS[key])]["band"] for key in ("amoxicillin-500", "paracetamol-500",
                                                                    "ibuprofen-200")}
    assert bands == {"in_stock", "low", "out"}
    assert by_id[str(SANDBOX_ITEM_IDS["morphine-10"])]["linked"] is False
