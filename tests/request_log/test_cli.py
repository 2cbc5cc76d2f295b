"""`requests list`: one JSON object with the owner's requests, or exit 2 and a reason."""

import uuid

from clinicrecords.access.keys import masked, parse_key
from tests.access.helpers import bearer
from tests.common.cli import ok, refused


def test_lists_a_workspaces_requests_with_filters_and_pages(world, testapp, writer):
    workspace_id, sandbox_id = world.workspace()
    key_id, key = world.key_row(workspace_id=workspace_id, mode="test")
    me = testapp.get("/v1/me", headers=bearer(key))
    missing = testapp.get(f"/v1/clinics/{sandbox_id}/patients/{uuid.uuid4()}", headers=bearer(key),
                          status=404)
    assert writer.flush(timeout=10)

    listed = ok("requests", "list", "--workspace", workspace_id)
    assert [row["request_id"] for row in listed["data"]] == [missing.headers["X-Request-Id"],
                                                               me.headers["X-Request-Id"]]
    assert listed["next_before"] is None
    row = listed["data"][1]
    assert {k: row[k] for k in ("key", "method", "path", "status", "code", "clinic_id")} == {
        "key": masked("test", parse_key(key).key_id), "method": "GET", "path": "/v1/me", "status": 200,
        "code": None, "clinic_id": None}
    assert set(row) == {"time", "key", "method", "path", "status", "code", "request_id", "latency_ms",
                        "clinic_id"}

    by_status = ok("requests", "list", "--workspace", workspace_id, "--status", 404, "--key", key_id)
    assert [row["code"] for row in by_status["data"]] == ["not_found"]
    by_id = ok("requests", "list", "--workspace", workspace_id, "--request-id", me.headers["X-Request-Id"])
    assert len(by_id["data"]) == 1
    first = ok("requests", "list", "--workspace", workspace_id, "--limit", 1)
    second = ok("requests", "list", "--workspace", workspace_id, "--limit", 1,
                "--before", first["next_before"])
    assert [first["data"][0]["request_id"], second["data"][0]["request_id"]] == [
        row["request_id"] for row in listed["data"]]
    assert second["next_before"] is None


def test_a_clinic_owned_keys_requests(world, testapp, writer):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id, mode="live")
    testapp.get("/v1/me", headers=bearer(key))
    assert writer.flush(timeout=10)
    assert [row["path"] for row in ok("requests", "list", "--clinic", clinic_id)["data"]] == ["/v1/me"]


def test_bad_input_exits_2(world, capsys):
    workspace_id, _ = world.workspace()
    assert "no workspace" in refused("requests", "list", "--workspace", uuid.uuid4())
    assert "no clinic" in refused("requests", "list", "--clinic", uuid.uuid4())
    for status in ("abc", 99, 600):
        refused("requests", "list", "--workspace", workspace_id, "--status", status)
        assert "not an HTTP status" in capsys.readouterr().err  # argparse's own message
    assert "before" in refused("requests", "list", "--workspace", workspace_id, "--before", "!!not-a-cursor")
    assert "limit" in refused("requests", "list", "--workspace", workspace_id, "--limit", 101)
    refused("requests", "list")
    refused("requests", "list", "--workspace", workspace_id, "--clinic", uuid.uuid4())
