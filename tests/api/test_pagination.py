import uuid

import pytest

from clinicrecords.patients.schemas import PatientCreate


@pytest.fixture
def many(testapp, connected):
    ids = []
    for n in range(7):
        body = dict(PatientCreate.EXAMPLE, family_name=f"Family{n}")
        ids.append(testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", body,
                                     headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())}
                                     ).json["data"]["id"])
    return ids


def _pages(testapp, connected, limit):
    url, seen, cursor = f"/v1/clinics/{connected.clinic_id}/patients", [], None
    while True:
        params = {"limit": limit, **({"starting_after": cursor} if cursor else {})}
        body = testapp.get(url, params, headers=connected.headers).json
        seen += [p["id"] for p in body["data"]]
        if not body["has_more"]:
            assert body["next_cursor"] is None
            return seen
        cursor = body["next_cursor"]


def test_pages_cover_everything_once_in_order(testapp, connected, many):
    assert _pages(testapp, connected, 3) == many
    assert _pages(testapp, connected, 100) == many


@pytest.mark.parametrize("limit", ["0", "101", "-1", "ten"])
def test_limit_out_of_range_is_400(testapp, connected, limit):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?limit={limit}", headers=connected.headers,
                           status=400)
    assert response.json["errors"][0]["pointer"] == "/limit"


def test_unknown_query_parameter_is_named(testapp, connected):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?colour=red", headers=connected.headers,
                           status=400)
    assert response.json["errors"] == [{"pointer": "/colour", "location": "query", "message": "Unknown field."}]


def test_tampered_and_foreign_cursors_are_400(world, testapp, connected, many):
    url = f"/v1/clinics/{connected.clinic_id}/patients"
    cursor = testapp.get(url, {"limit": 2}, headers=connected.headers).json["next_cursor"]
    body, mac = cursor.split(".")
    for bad in (body + "x." + mac, body + "." + mac[::-1], "garbage", cursor + "."):
        assert testapp.get(url, {"starting_after": bad}, headers=connected.headers,
                           status=400).json["errors"][0]["pointer"] == "/starting_after"
    other = world.connected()
    testapp.get(f"/v1/clinics/{other.clinic_id}/patients", {"starting_after": cursor}, headers=other.headers,
                status=400)
