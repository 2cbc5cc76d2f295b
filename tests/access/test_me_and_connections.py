"""GET /v1/me and GET /v1/connections for each kind of key."""

from clinicrecords.access.permissions import ALL_PERMISSIONS


def _bearer(key):
    return {"Authorization": f"Bearer {key}"}


def test_me_for_a_clinic_key(world, testapp):
    clinic_id = world.clinic("Harbour Clinic")
    key_id, key = world.key_row(clinic_id=clinic_id)
    data = testapp.get("/v1/me", headers=_bearer(key)).json["data"]
    assert data["mode"] == "live"
    assert data["owner"] == {"type": "clinic", "id": str(clinic_id), "name": "Harbour Clinic"}
    assert data["key_id"].startswith("ehr_live_" + key_id[:4]) and key_id not in data["key_id"]
    assert data["expires_at"] is None and data["created_at"]
    assert key.split("_")[-1] not in testapp.get("/v1/me", headers=_bearer(key)).text


def test_me_for_workspace_keys(world, testapp):
    workspace_id, _ = world.workspace("Acme")
    for mode in ("live", "test"):
        data = testapp.get("/v1/me", headers=_bearer(world.key(workspace_id=workspace_id, mode=mode))).json["data"]
        assert data["mode"] == mode
        assert data["owner"] == {"type": "workspace", "id": str(workspace_id), "name": "Acme"}


def test_connections_for_a_clinic_key_is_exactly_itself(world, testapp):
    clinic_id = world.clinic()
    body = testapp.get("/v1/connections", headers=_bearer(world.key(clinic_id=clinic_id))).json
    assert body["has_more"] is False and body["next_cursor"] is None
    [entry] = body["data"]
    assert entry["clinic_id"] == str(clinic_id)
    assert entry["connected_at"] is None and entry["expires_at"] is None
    assert set(entry["scopes"]) == ALL_PERMISSIONS


def test_connections_for_a_test_key_is_its_sandbox(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    [entry] = testapp.get("/v1/connections",
                          headers=_bearer(world.key(workspace_id=workspace_id, mode="test"))).json["data"]
    assert entry["clinic_id"] == str(sandbox_id) and entry["sandbox"] is True


def test_connections_for_a_live_key_shows_granted_scopes(world, testapp):
    workspace_id, _ = world.workspace()
    first, second = world.clinic("First"), world.clinic("Second")
    world.grant(workspace_id, first, {"patients:read", "allergies:read"})
    world.grant(workspace_id, second, {"conditions:read"})
    key = world.key(workspace_id=workspace_id, mode="live", scopes={"patients:read", "conditions:read"})
    entries = {e["display_name"]: e for e in testapp.get("/v1/connections", headers=_bearer(key)).json["data"]}
    # A narrowed key holds the intersection of its own scopes and the clinic's grant.
    assert entries["First"]["scopes"] == ["patients:read"]
    assert entries["Second"]["scopes"] == ["conditions:read"]
    assert entries["First"]["connected_at"] is not None
