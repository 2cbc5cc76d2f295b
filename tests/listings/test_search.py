"""POST /v1/listings/search: by name (typo-tolerant, ranked) or code, optionally near a point."""

import pytest

from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS
from tests.listings.conftest import Network

AMOXICILLIN = dict(name="Amoxicillin 500 mg capsules", generic_name="amoxicillin", brand_name="Amoxil",
                   gtin="5000456012348", regulator_numbers=["PL 00010/0001"])


def _ids(body):
    return [(entry["clinic_id"], entry["item_id"]) for entry in body["data"]]


def test_a_misspelt_name_finds_and_ranks_the_closest_medicine_first(network):
    till = network.pharmacy()
    amoxicillin = till.item(**AMOXICILLIN, quantity=30)
    amoxapine = till.item(name="Amoxapine 50 mg tablets", quantity=30)
    till.item(name="Ibuprofen 200 mg tablets", quantity=30)
    body = network.search({"item": {"q": "amoxicilin"}})
    found = [entry["item_id"] for entry in body["data"]]
    assert found[0] == str(amoxicillin)
    assert set(found) <= {str(amoxicillin), str(amoxapine)}
    entry = body["data"][0]
    assert entry == {"clinic_id": str(till.id), "display_name": "Harbour Pharmacy", "item_id": str(amoxicillin),
                     "match": "text", "band": "in_stock", "distance_km": None, "as_of": entry["as_of"]}
    assert entry["as_of"]


@pytest.mark.parametrize("criteria", [{"gtin": "5000456012348"}, {"gtin": "05000456012348"},
                                      {"regulator_number": "pl 00010/0001"}])
def test_code_search(network, criteria):
    till = network.pharmacy()
    item_id = till.item(**AMOXICILLIN, quantity=2)
    till.item(name="Amoxicillin 250 mg capsules", gtin="5012345678900", quantity=2)
    [entry] = network.search({"item": criteria})["data"]
    assert (entry["item_id"], entry["match"], entry["band"]) == (str(item_id), "code", "low")


def test_a_result_never_carries_a_quantity(network):
    network.pharmacy().item(**AMOXICILLIN, quantity=30)
    [entry] = network.search({"item": {"q": "amoxicillin"}})["data"]
    assert "quantity" not in entry


def test_unlinked_items_never_appear_by_text_or_code(network):
    till = network.pharmacy()
    item_id = till.item(**AMOXICILLIN, quantity=30, linked=False)
    for criteria in ({"q": "amoxicillin"}, {"gtin": AMOXICILLIN["gtin"]}, {"regulator_number": "PL 00010/0001"}):
        assert network.search({"item": criteria})["data"] == []
    till.link(item_id)
    assert len(network.search({"item": {"gtin": AMOXICILLIN["gtin"]}})["data"]) == 1
    till.link(item_id, linked=False)
    for criteria in ({"q": "amoxicillin"}, {"gtin": AMOXICILLIN["gtin"]}):
        assert network.search({"item": criteria})["data"] == []


def test_pharmacies_not_listed_to_the_workspace_are_excluded(network, world, testapp):
    listed = network.pharmacy("Listed Pharmacy")
    hidden = network.pharmacy("Connected But Not Listed", publish=False, connect=True)
    listed.item(**AMOXICILLIN, quantity=3)
    hidden.item(**AMOXICILLIN, quantity=3)
    assert {c for c, _ in _ids(network.search({"item": {"q": "amoxicillin"}}))} == {str(listed.id)}
    other = Network(world, testapp)
    assert other.search({"item": {"q": "amoxicillin"}})["data"] == []


def test_a_clinic_owned_key_always_gets_an_empty_result(network, world):
    till = network.pharmacy()
    till.item(**AMOXICILLIN, quantity=3)
    own_key = world.key(clinic_id=till.id)
    assert network.search({"item": {"q": "amoxicillin"}}, key=own_key) == {"data": []}


def test_a_test_key_searches_only_its_own_sandbox(network, world, testapp):
    network.pharmacy().item(**AMOXICILLIN, quantity=3)
    body = network.search({"item": {"q": "amoxicilin"}}, key=network.test_key)
    assert _ids(body) == [(str(network.sandbox_id), str(SANDBOX_ITEM_IDS["amoxicillin-500"]))]
    assert body["data"][0]["band"] == "in_stock"
    # The sandbox's unlinked item stays off the network, as any other.
    assert network.search({"item": {"q": "morphine"}}, key=network.test_key)["data"] == []
    assert [e["band"] for e in network.search({"item": {"gtin": "05023456789010"}}, key=network.test_key)["data"]
            ] == ["out"]
    other = Network(world, testapp)
    assert {c for c, _ in _ids(other.search({"item": {"q": "amoxicillin"}}, key=other.test_key))} == {
        str(other.sandbox_id)}


def test_every_example_body_works_in_a_sandbox(network):
    from clinicrecords.listings.schemas import ListingSearchRequest

    assert network.search(ListingSearchRequest.EXAMPLE, key=network.test_key)["data"]


def test_a_stale_till_shows_unknown_never_out(network):
    till = network.pharmacy()
    till.item(**AMOXICILLIN, quantity=0)
    assert network.search({"item": {"q": "amoxicillin"}})["data"][0]["band"] == "out"
    till.stale()
    entry = network.search({"item": {"q": "amoxicillin"}})["data"][0]
    assert entry["band"] == "unknown" and entry["as_of"]
    till.report()
    assert network.search({"item": {"q": "amoxicillin"}})["data"][0]["band"] == "out"


def test_a_silent_till_reads_unknown_without_any_sweep(network):
    import datetime

    from tests.inventory.conftest import AGE

    till = network.pharmacy()
    till.item(**AMOXICILLIN, quantity=9)
    till.report(now=datetime.datetime.now(datetime.UTC) - AGE - datetime.timedelta(minutes=1))
    assert network.search({"item": {"gtin": AMOXICILLIN["gtin"]}})["data"][0]["band"] == "unknown"


# 0.1 degree of latitude is 11.119 km on the mean Earth sphere.
@pytest.mark.parametrize("radius_km, found", [(11.2, True), (11.1, False)])
def test_radius_edges(network, radius_km, found):
    till = network.pharmacy(lat=0.1, lng=10.0)
    till.item(**AMOXICILLIN, quantity=3)
    body = network.search({"item": {"q": "amoxicillin"}, "near": {"lat": 0.0, "lng": 10.0, "radius_km": radius_km}})
    assert bool(body["data"]) is found
    if found:
        assert body["data"][0]["distance_km"] == pytest.approx(11.119, abs=0.01)


def test_the_corner_of_the_bounding_box_is_outside_the_circle(network):
    # 9 km north and 9 km east: inside the 10 km box, 12.7 km away.
    till = network.pharmacy(lat=0.0809, lng=10.0809)
    till.item(**AMOXICILLIN, quantity=3)
    body = network.search({"item": {"q": "amoxicillin"}, "near": {"lat": 0.0, "lng": 10.0, "radius_km": 10}})
    assert body["data"] == []


def test_results_across_the_antimeridian_are_ordered_by_distance(network):
    east = network.pharmacy("East", lat=0.0, lng=179.95)
    west = network.pharmacy("West", lat=0.0, lng=-179.99)
    far = network.pharmacy("Far", lat=0.0, lng=170.0)
    for till in (east, west, far):
        till.item(**AMOXICILLIN, quantity=3)
    body = network.search({"item": {"gtin": AMOXICILLIN["gtin"]},
                           "near": {"lat": 0.0, "lng": 179.99, "radius_km": 20}})
    assert [entry["display_name"] for entry in body["data"]] == ["West", "East"]
    assert body["data"][0]["distance_km"] < body["data"][1]["distance_km"]


def test_limit(network):
    till = network.pharmacy()
    for n in range(3):
        till.item(**dict(AMOXICILLIN, name=f"Amoxicillin {n}"), quantity=3)
    assert len(network.search({"item": {"gtin": AMOXICILLIN["gtin"]}, "limit": 2})["data"]) == 2


@pytest.mark.parametrize("body, pointer", [
    ({"item": {"q": "amoxicillin"}, "limit": 51}, "/limit"),
    ({"item": {"q": "amoxicillin"}, "limit": 0}, "/limit"),
    ({"item": {"q": "amoxicillin", "gtin": "5000456012348"}}, "/item"),
    ({"item": {}}, "/item"),
    ({}, "/item"),
    ({"item": {"gtin": "5000456012349"}}, "/item/gtin"),
    ({"item": {"q": "a"}}, "/item/q"),
    ({"item": {"q": "amoxicillin"}, "near": {"lat": 91, "lng": 0, "radius_km": 5}}, "/near/lat"),
    ({"item": {"q": "amoxicillin"}, "near": {"lat": 0, "lng": 0, "radius_km": 0}}, "/near/radius_km"),
    ({"item": {"q": "amoxicillin"}, "near": {"lat": 0, "lng": 0}}, "/near/radius_km"),
    ({"item": {"q": "amoxicillin"}, "quantity": 1}, "/quantity"),
])
def test_invalid_requests(network, body, pointer):
    response = network.search(body, status=400)
    assert response["code"] == "invalid_request"
    assert pointer in {error["pointer"] for error in response["errors"]}


def test_the_search_needs_listing_availability_read(world, testapp):
    narrow = Network(world, testapp, scopes={"listing.profile:read"})
    response = narrow.search({"item": {"q": "amoxicillin"}}, status=403)
    assert response["code"] == "scope_missing" and "listing.availability:read" in response["detail"]


def test_a_live_key_of_an_unverified_workspace_is_refused(network, world):
    world.set_workspace(network.workspace_id, verified=False)
    assert network.search({"item": {"q": "amoxicillin"}}, status=403)["code"] == "not_verified"
