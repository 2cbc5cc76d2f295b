"""GET /v1/me and GET /v1/connections for each kind of key."""

from clinicrecords.access.interfaces import ALL_PERMISSIONS


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


def test_connections_of_a_live_key_that_reaches_no_clinic_now_lists_none_and_says_why(world, testapp):
    clinic_id = world.clinic()
    cases = [
        ({"verified": False}, "not_verified"),
        ({"paid": False}, "workspace_plan_required"),
        ({"terms_accepted": False}, "workspace_plan_required"),
    ]
    for flags, code in cases:
        workspace_id, _ = world.workspace(**flags)
        world.grant(workspace_id, clinic_id, {"patients:read"})
        key = world.key(workspace_id=workspace_id, mode="live")
        body = testapp.get("/v1/connections", headers=_bearer(key)).json
        assert (body["data"], body["has_more"], body["next_cursor"]) == ([], False, None), flags
        assert body["blocked"]["code"] == code and body["blocked"]["detail"], flags
        # The same code a clinic's route answers with.
        refused = testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=_bearer(key), status=403)
        assert refused.json["code"] == code


def test_a_lapsed_verification_hides_the_connections_until_it_is_restored(world, testapp, connected):
    listed = testapp.get("/v1/connections", headers=connected.headers).json
    assert [e["clinic_id"] for e in listed["data"]] == [str(connected.clinic_id)] and listed["blocked"] is None
    world.set_workspace(connected.workspace_id, verified=False)
    lapsed = testapp.get("/v1/connections", headers=connected.headers).json
    assert lapsed["data"] == [] and lapsed["blocked"]["code"] == "not_verified"
    world.set_workspace(connected.workspace_id, verified=True)
    assert testapp.get("/v1/connections", headers=connected.headers).json["data"] == listed["data"]


def test_clinic_and_test_keys_are_never_blocked(world, testapp):
    workspace_id, _ = world.workspace(verified=False, paid=False, terms_accepted=False)
    for key in (world.key(workspace_id=workspace_id, mode="test"), world.key(clinic_id=world.clinic())):
        body = testapp.get("/v1/connections", headers=_bearer(key)).json
        assert len(body["data"]) == 1 and body["blocked"] is None


def test_connections_are_paged_with_limit_and_starting_after(world, testapp):
    """Like every list (spec, Endpoints: lists accept `limit` and `starting_after`): oldest connection first."""
    workspace_id, _ = world.workspace()
    clinics = [world.clinic(f"Clinic {n}") for n in range(5)]
    for clinic_id in clinics:
        world.grant(workspace_id, clinic_id, {"patients:read"})
    key = world.key(workspace_id=workspace_id, mode="live")
    seen, query = [], {"limit": "2"}
    while True:
        page = testapp.get("/v1/connections", params=query, headers=_bearer(key)).json
        assert len(page["data"]) <= 2 and page["blocked"] is None
        seen += [entry["clinic_id"] for entry in page["data"]]
        if not page["has_more"]:
            assert page["next_cursor"] is None
            break
        query = {"limit": "2", "starting_after": page["next_cursor"]}
    assert seen == [str(clinic_id) for clinic_id in clinics]
    whole = testapp.get("/v1/connections", headers=_bearer(key)).json
    assert [entry["clinic_id"] for entry in whole["data"]] == seen and whole["has_more"] is False


def test_connections_refuse_a_bad_limit_or_cursor(world, testapp, connected):
    for query, pointer in (({"limit": "0"}, "/limit"), ({"limit": "101"}, "/limit"),
                           ({"starting_after": "not-a-cursor"}, "/starting_after"), ({"page": "2"}, "/page")):
        response = testapp.get("/v1/connections", params=query, headers=connected.headers, status=400)
        assert response.json["code"] == "invalid_request"
        assert [(e["pointer"], e["location"]) for e in response.json["errors"]] == [(pointer, "query")]


def test_a_clinic_key_pages_its_one_entry(world, testapp):
    key = world.key(clinic_id=world.clinic())
    page = testapp.get("/v1/connections", params={"limit": "1"}, headers=_bearer(key)).json
    assert len(page["data"]) == 1 and page["has_more"] is False and page["next_cursor"] is None
