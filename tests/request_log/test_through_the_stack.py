"""Requests made with a key reach the key owner's request log: the right fields, newest first, and nothing
of the body, the query string or another owner's requests."""

import datetime
import json
import uuid

from clinicrecords.access.keys import masked, parse_key
from clinicrecords.patients.schemas import PatientCreate
from clinicrecords.request_log.services import describe
from tests.access.helpers import bearer


def test_a_test_keys_requests_with_their_fields_and_nothing_of_body_or_query(world, testapp, request_log):
    workspace_id, sandbox_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    started = datetime.datetime.now(datetime.UTC)
    created = testapp.post_json(f"/v1/clinics/{sandbox_id}/patients", PatientCreate.EXAMPLE,
                                headers={**bearer(key), "Idempotency-Key": "reqlog-secret-idem"}, status=201)
    listed = testapp.get(f"/v1/clinics/{sandbox_id}/patients?limit=3&family_name=Querysecret",
                         headers=bearer(key), expect_errors=True)
    named = testapp.get(f"/v1/clinics/{sandbox_id}/patients/Namesecret", headers=bearer(key), status=404)

    page = request_log(workspace_id)
    rows = [describe(row) for row in page.rows]
    assert [row["request_id"] for row in rows] == [
        named.headers["X-Request-Id"], listed.headers["X-Request-Id"], created.headers["X-Request-Id"]]
    newest, middle, oldest = rows
    assert oldest["method"] == "POST" and oldest["status"] == 201 and oldest["code"] is None
    assert oldest["path"] == f"/v1/clinics/{sandbox_id}/patients"
    assert middle["path"] == f"/v1/clinics/{sandbox_id}/patients" and middle["status"] == listed.status_int
    assert (newest["method"], newest["status"], newest["code"]) == ("GET", 404, "not_found")
    assert newest["path"] == f"/v1/clinics/{sandbox_id}/patients/{{redacted}}"
    for row in rows:
        assert row["key"] == masked("test", parse_key(key).key_id)
        assert started <= datetime.datetime.fromisoformat(row["time"]) <= datetime.datetime.now(datetime.UTC)
        assert 0 < row["latency_ms"] < 60_000
        assert row["clinic_id"] in (str(sandbox_id), None)
    assert page.next_before is None
    text = json.dumps(rows)
    for secret in ("Querysecret", "family_name", "limit=3", "Namesecret", "reqlog-secret-idem",
                   parse_key(key).secret, PatientCreate.EXAMPLE["family_name"],
                   PatientCreate.EXAMPLE["given_name"]):
        assert secret not in text


def test_another_workspaces_requests_are_never_visible(world, testapp, request_log):
    mine, _ = world.workspace()
    theirs, _ = world.workspace()
    my_key, their_key = (world.key(workspace_id=w, mode="test") for w in (mine, theirs))
    my_answer = testapp.get("/v1/me", headers=bearer(my_key))
    their_answer = testapp.get("/v1/me", headers=bearer(their_key))
    assert [r.request_id for r in request_log(mine).rows] == [my_answer.headers["X-Request-Id"]]
    assert [r.request_id for r in request_log(theirs).rows] == [their_answer.headers["X-Request-Id"]]
    # A filter naming the other workspace's key or request id finds nothing in mine.
    assert request_log(mine, key_id=parse_key(their_key).key_id).rows == []
    assert request_log(mine, request_id=their_answer.headers["X-Request-Id"]).rows == []


def test_a_clinic_owned_keys_requests_belong_to_the_clinic(world, testapp, request_log):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id, mode="live")
    answer = testapp.get("/v1/me", headers=bearer(key))
    [row] = request_log(clinic_id).rows
    assert (row.request_id, row.key_mode, row.path) == (answer.headers["X-Request-Id"], "live", "/v1/me")


def test_requests_without_a_valid_key_are_not_logged(world, testapp, writer):
    assert writer.flush(timeout=10)
    written, lost = writer.written, writer.lost
    testapp.get("/v1/me", status=401)
    testapp.get("/v1/me", headers=bearer("ehr_live_0123456789abcdef_" + "0" * 48), status=401)
    assert writer.flush(timeout=10)
    assert (writer.written, writer.lost) == (written, lost)


def test_refusals_carry_their_problem_code(world, testapp, request_log):
    workspace_id, _ = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    testapp.get(f"/v1/clinics/{uuid.uuid4()}/patients", headers=bearer(key), status=403)
    [row] = request_log(workspace_id).rows
    assert (row.status, row.code) == (403, "sandbox_only")


def test_filters_by_key_status_and_request_id_and_keyset_pages(world, testapp, request_log):
    workspace_id, sandbox_id = world.workspace()
    first, second = (world.key_row(workspace_id=workspace_id, mode="test") for _ in range(2))
    answers = [testapp.get("/v1/me", headers=bearer(first[1])),
               testapp.get(f"/v1/clinics/{sandbox_id}/nothing-here", headers=bearer(second[1]), status=404),
               testapp.get("/v1/connections", headers=bearer(second[1]))]
    ids = [a.headers["X-Request-Id"] for a in answers]
    assert [r.request_id for r in request_log(workspace_id, key_id=first[0]).rows] == [ids[0]]
    assert [r.request_id for r in request_log(workspace_id, key_id=second[0]).rows] == [ids[2], ids[1]]
    assert [r.request_id for r in request_log(workspace_id, status=404).rows] == [ids[1]]
    assert [r.request_id for r in request_log(workspace_id, request_id=ids[2]).rows] == [ids[2]]
    assert request_log(workspace_id, status=500).rows == []

    pages, before = [], None
    while True:
        page = request_log(workspace_id, limit=2, before=before)
        pages.append([r.request_id for r in page.rows])
        if page.next_before is None:
            break
        before = page.next_before
    assert pages == [[ids[2], ids[1]], [ids[0]]]


def test_a_replayed_refusal_carries_its_code_too(world, testapp, request_log):
    workspace_id, sandbox_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    headers = {**bearer(key), "Idempotency-Key": "reqlog-replay"}
    url = f"/v1/clinics/{sandbox_id}/patients"
    for _ in range(2):
        testapp.post_json(url, {"given_name": ""}, headers=headers, status=400)
    rows = request_log(workspace_id).rows
    assert [(row.status, row.code) for row in rows] == [(400, "invalid_request")] * 2


def test_refusals_made_before_the_key_is_read_reach_its_owner_too(world, testapp, request_log):
    """Every answer to a request that carries a valid key is logged to the key's owner (decision 0060): a
    browser's request, refused before the gate reads the key, and a body over its limit, refused before any
    view runs."""
    workspace_id, sandbox_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    browser = testapp.get("/v1/me", headers={**bearer(key), "Origin": "https://app.example.com"}, status=403)
    too_large = testapp.post(f"/v1/clinics/{sandbox_id}/patients", b"x" * (1024 * 1024 + 1),
                             headers={**bearer(key), "Content-Type": "application/json"}, status=413)
    testapp.get("/v1/me", headers={"Origin": "https://app.example.com"}, status=403)  # no key: nobody's
    rows = request_log(workspace_id).rows
    assert [(row.request_id, row.status, row.code, row.key_id) for row in rows] == [
        (too_large.headers["X-Request-Id"], 413, "payload_too_large", parse_key(key).key_id),
        (browser.headers["X-Request-Id"], 403, "browser_not_allowed", parse_key(key).key_id)]
