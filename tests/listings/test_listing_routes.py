"""/v1/listings/pharmacies, /v1/clinics/{id}/listing/profile and /listing/items; publish; reindex."""

import uuid

import pytest
from sqlalchemy import func, select, text

from clinicrecords.listings.models import ListingGrant
from tests.inventory.conftest import admin, ok
from tests.listings.conftest import Network


def test_pharmacies_listed_to_the_organization(network, world, testapp):
    first = network.pharmacy("Alder Pharmacy", lat=52.0, lng=0.1)
    second = network.pharmacy("Birch Pharmacy")
    network.pharmacy("Not Listed Pharmacy", publish=False)
    body = testapp.get("/v1/listings/pharmacies", headers=network.headers).json
    assert [p["clinic_id"] for p in body["data"]] == [str(first.id), str(second.id)]
    assert body["data"][0] == {"clinic_id": str(first.id), "display_name": "Alder Pharmacy",
                               "location": {"lat": 52.0, "lng": 0.1},
                               "till": {"stale": False,
                                        "last_reported_at": body["data"][0]["till"]["last_reported_at"]}}
    sandbox = testapp.get("/v1/listings/pharmacies", headers={"Authorization": f"Bearer {network.test_key}"}).json
    assert [p["clinic_id"] for p in sandbox["data"]] == [str(network.sandbox_id)]
    clinic_key = world.key(clinic_id=first.id)
    assert testapp.get("/v1/listings/pharmacies", headers={"Authorization": f"Bearer {clinic_key}"}).json[
        "data"] == []


def test_pharmacies_need_listing_profile_read(world, testapp):
    narrow = Network(world, testapp, scopes={"listing.availability:read"})
    response = testapp.get("/v1/listings/pharmacies", headers=narrow.headers, status=403)
    assert response.json["code"] == "scope_missing"


def test_profile_and_items_through_a_connection(network, testapp):
    till = network.pharmacy(connect=True)
    listed = till.item(name="Amoxicillin 500 mg capsules", quantity=0)
    till.item(name="Private item", quantity=5, linked=False)
    base = f"/v1/clinics/{till.id}/listing"
    profile = testapp.get(f"{base}/profile", headers=network.headers).json["data"]
    assert (profile["clinic_id"], profile["kind"], profile["till"]["stale"]) == (str(till.id), "pharmacy", False)
    items = testapp.get(f"{base}/items", headers=network.headers).json["data"]
    assert [(i["id"], i["band"]) for i in items] == [(str(listed), "out")]
    assert "quantity" not in items[0]
    till.stale()
    assert testapp.get(f"{base}/items", headers=network.headers).json["data"][0]["band"] == "unknown"


def test_listing_routes_need_a_connection(network, testapp):
    till = network.pharmacy(connect=False)
    for path in ("profile", "items"):
        response = testapp.get(f"/v1/clinics/{till.id}/listing/{path}", headers=network.headers, status=404)
        assert response.json["code"] == "not_found"


def test_listing_routes_are_for_pharmacies(world, testapp, connected):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/listing/profile", headers=connected.headers,
                           status=404)
    assert response.json["code"] == "not_found"


@pytest.mark.parametrize("path, missing", [("profile", "listing.profile:read"),
                                           ("items", "listing.availability:read")])
def test_listing_routes_need_their_permission(world, testapp, network, path, missing):
    till = network.pharmacy()
    other = {"listing.profile:read", "listing.availability:read"} - {missing}
    world.grant(network.workspace_id, till.id, scopes=other)
    response = testapp.get(f"/v1/clinics/{till.id}/listing/{path}", headers=network.headers, status=403)
    assert response.json["code"] == "scope_missing" and missing in response.json["detail"]


def test_publish_and_unpublish_commands(world, testapp, network):
    till = network.pharmacy(publish=False)
    till.item(name="Amoxicillin 500 mg capsules", quantity=3)
    search = lambda: network.search({"item": {"q": "amoxicillin"}})["data"]  # noqa: E731
    assert search() == []
    assert ok("listing", "publish", "--clinic", str(till.id), "--workspace", str(network.workspace_id)) == {
        "clinic_id": str(till.id), "workspace_id": str(network.workspace_id), "listed": True}
    assert len(search()) == 1
    ok("listing", "unpublish", "--clinic", str(till.id), "--workspace", str(network.workspace_id))
    assert search() == []


def test_publish_refuses_bad_input(world, network, engine):
    real_clinic = world.clinic()
    pharmacy = network.pharmacy(publish=False)

    def grants():
        with engine.connect() as connection:
            return connection.execute(select(func.count()).select_from(ListingGrant)).scalar()

    before = grants()
    for argv in [
        ("listing", "publish", "--clinic", str(real_clinic), "--workspace", str(network.workspace_id)),
        ("listing", "publish", "--clinic", str(network.sandbox_id), "--workspace", str(network.workspace_id)),
        ("listing", "publish", "--clinic", str(pharmacy.id), "--workspace", str(uuid.uuid4())),
        ("listing", "publish", "--clinic", str(uuid.uuid4()), "--workspace", str(network.workspace_id)),
        ("listing", "publish", "--clinic", "x", "--workspace", str(network.workspace_id)),
        ("listing", "unpublish", "--clinic", str(pharmacy.id), "--workspace", str(network.workspace_id)),
    ]:
        status, result, _ = admin(*argv)
        assert status == 2 and result is None
    assert grants() == before


_PROJECTION = ("listing_clinics", "listing_items", "listing_terms")


def _snapshot(engine):
    with engine.connect() as connection:
        return {table: sorted(tuple(str(v) for v in row) for row in connection.execute(
            text(f"SELECT * FROM control.{table}"))) for table in _PROJECTION}


def test_the_rebuilt_projection_equals_the_one_kept_in_step(network, world, engine):
    import datetime

    a = network.pharmacy("Alder Pharmacy")
    b = network.pharmacy("Birch Pharmacy", lat=None, lng=None)
    ids = [a.item(name="Amoxicillin 500 mg capsules", generic_name="amoxicillin", gtin="5000456012348",
                  regulator_numbers=["PL 1"], quantity=q) for q in (0, 3, 40)]
    a.link(ids[0], linked=False)
    a.stock(ids[1], 12)
    hidden = b.item(name="Zopiclone 7.5 mg", quantity=9, linked=False)
    b.link(hidden)
    b.item(name="Unlinked Cream", quantity=1, linked=False)
    b.stale()
    a.report(now=datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=3))
    # Terms are a vocabulary: a term no item uses any more is dropped by the rebuild only.
    kept = _snapshot(engine)
    result = ok("listings", "reindex")
    assert result["items"] >= 3 and result["clinics"] >= 2
    rebuilt = _snapshot(engine)
    assert rebuilt["listing_clinics"] == kept["listing_clinics"]
    assert rebuilt["listing_items"] == kept["listing_items"]
    assert set(rebuilt["listing_terms"]) <= set(kept["listing_terms"])
    with engine.connect() as connection:
        used = {row[0] for row in connection.execute(text("SELECT DISTINCT unnest(terms) FROM control.listing_items"))}
    assert {term for (term,) in rebuilt["listing_terms"]} == used
