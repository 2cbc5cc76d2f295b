import re
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


def _insert_patients(world, clinic_id, count, **values):
    import datetime

    from sqlalchemy import insert

    from clinicrecords.db.tenancy import bind_to_clinic
    from clinicrecords.patients.models import Patient

    rows = [{"id": uuid.uuid4(), "given_name": "Deep", "family_name": f"P{n:05d}",
             "birth_date": datetime.date(1990, 1, 1), **values} for n in range(count)]
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        db.execute(insert(Patient), rows)
    return rows


def test_expired_cursors_are_400(app, testapp, connected, many):
    import datetime
    import time

    url = f"/v1/clinics/{connected.clinic_id}/patients"
    signer = app.registry["api.cursor_signer"]
    last = testapp.get(url, {"limit": 2}, headers=connected.headers).json["data"][-1]
    position = [datetime.datetime.fromisoformat(last["created_at"]), uuid.UUID(last["id"])]
    scope = f"{url}|{connected.workspace_id}"
    fresh = signer.sign(scope, position)
    assert len(testapp.get(url, {"starting_after": fresh}, headers=connected.headers).json["data"]) == 5
    expired = signer.sign(scope, position, now=time.time() - 24 * 3600 - 1)
    response = testapp.get(url, {"starting_after": expired}, headers=connected.headers, status=400)
    assert response.json["errors"][0] == {**response.json["errors"][0], "pointer": "/starting_after",
                                          "location": "query"}


def test_deep_pages_use_keyset_predicates_not_offset(world, testapp, connected, engine):
    """1,000 rows walked 100 at a time: complete, ordered, and every page is one `(created_at, id) > cursor`
    query with LIMIT 101, whatever its depth."""
    from sqlalchemy import event

    rows = _insert_patients(world, connected.clinic_id, 1000)
    statements = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        if re.search(r"\bFROM (clinic_[0-9a-f]{32}\.)?patients\b", statement):  # unqualified since decision 0106
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", capture)
    try:
        seen = _pages(testapp, connected, 100)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    assert len(seen) == 1000 and set(seen) == {str(row["id"]) for row in rows}
    assert len(statements) == 10
    for statement in statements:
        assert "OFFSET" not in statement.upper()
    for statement in statements[1:]:
        assert re.search(r"\(\S*patients\.created_at, \S*patients\.id\) > \(", statement), statement


def test_inserts_between_pages_neither_repeat_nor_skip(world, testapp, connected, many):
    url = f"/v1/clinics/{connected.clinic_id}/patients"
    first = testapp.get(url, {"limit": 3}, headers=connected.headers).json
    added = [str(row["id"]) for row in _insert_patients(world, connected.clinic_id, 4)]
    seen, cursor = [p["id"] for p in first["data"]], first["next_cursor"]
    while cursor:
        page = testapp.get(url, {"limit": 3, "starting_after": cursor}, headers=connected.headers).json
        seen += [p["id"] for p in page["data"]]
        cursor = page["next_cursor"]
    assert seen[:7] == many
    assert sorted(seen[7:]) == sorted(added)  # later rows come after, each once
    assert len(seen) == len(set(seen))


def test_cursor_cannot_be_used_by_another_key_owner_on_the_same_list(world, testapp, connected, many):
    """A clinic-owned key of the same clinic reads the same list, but the cursor was signed for the workspace."""
    url = f"/v1/clinics/{connected.clinic_id}/patients"
    cursor = testapp.get(url, {"limit": 2}, headers=connected.headers).json["next_cursor"]
    clinic_key = world.key(clinic_id=connected.clinic_id)
    testapp.get(url, {"starting_after": cursor}, headers={"Authorization": f"Bearer {clinic_key}"}, status=400)


def test_updated_since_filters_and_must_be_a_timestamp(testapp, connected, many):
    url = f"/v1/clinics/{connected.clinic_id}/patients"
    assert len(testapp.get(url, {"updated_since": "2000-01-01T00:00:00Z"}, headers=connected.headers
                           ).json["data"]) == 7
    assert testapp.get(url, {"updated_since": "2999-01-01T00:00:00+00:00"}, headers=connected.headers
                       ).json["data"] == []
    response = testapp.get(url, {"updated_since": "yesterday"}, headers=connected.headers, status=400)
    assert response.json["errors"][0]["pointer"] == "/updated_since"


def test_limit_defaults_to_25(world, testapp, connected):
    _insert_patients(world, connected.clinic_id, 30)
    body = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers).json
    assert len(body["data"]) == 25 and body["has_more"] is True and body["next_cursor"]


def test_a_cursor_with_a_stray_character_is_refused_by_the_signer_itself():
    """The list query's pattern refuses it first; the signer, which other lists reach without that query
    (the portal's), refuses what base64 decoding alone would have skipped."""
    from clinicrecords.api.cursors import CursorSigner
    from clinicrecords.api.problems import Problem

    signer = CursorSigner("secret")
    issued = signer.sign("/v1/list|owner", [1])
    assert signer.verify(issued, "/v1/list|owner") == (1,)
    for stray in (f"{issued[:4]}!{issued[4:]}", f"{issued} ", f"{issued}\n", f"={issued}"):
        with pytest.raises(Problem):
            signer.verify(stray, "/v1/list|owner")
