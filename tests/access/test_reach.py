"""Spec, Authentication → Reach, and the 403 codes: who reaches which clinic, with what."""

import uuid

import pytest


def _bearer(key):
    return {"Authorization": f"Bearer {key}"}


def _clinic(testapp, clinic_id, key, status):
    """Traversal into the clinic: an unknown child answers 404 inside reach, the reach refusal outside it."""
    return testapp.get(f"/v1/clinics/{clinic_id}/no-such-collection", headers=_bearer(key), status=status)


def _same_404(first, second):
    strip = lambda r: {k: v for k, v in r.json.items() if k != "request_id"}  # noqa: E731
    assert first.status_int == second.status_int == 404
    assert strip(first) == strip(second)


def test_clinic_key_reaches_only_its_clinic(world, testapp):
    own, other = world.clinic(), world.clinic()
    key = world.key(clinic_id=own)
    _same_404(_clinic(testapp, other, key, 404), _clinic(testapp, uuid.uuid4(), key, 404))


def test_test_key_reaches_only_its_sandbox(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    other_workspace, other_sandbox = world.workspace()
    real = world.clinic()
    world.grant(workspace_id, real)
    key = world.key(workspace_id=workspace_id, mode="test")
    for clinic_id in (real, other_sandbox, uuid.uuid4()):
        assert _clinic(testapp, clinic_id, key, 403).json["code"] == "sandbox_only"


def test_live_key_never_reaches_a_sandbox(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="live")
    _same_404(_clinic(testapp, sandbox_id, key, 404), _clinic(testapp, uuid.uuid4(), key, 404))


def test_live_key_reaches_connected_clinics_only(world, testapp, connected):
    unconnected = world.clinic()
    _same_404(_clinic(testapp, unconnected, connected.key, 404), _clinic(testapp, uuid.uuid4(), connected.key, 404))


def test_revoked_connection_stops_on_the_next_call(world, testapp, connected):
    testapp.get(f"/v1/clinics/{connected.clinic_id}/no-such-collection", headers=connected.headers, status=404)
    entries = testapp.get("/v1/connections", headers=connected.headers).json["data"]
    assert [e["clinic_id"] for e in entries] == [str(connected.clinic_id)]
    world.revoke_connection(connected.workspace_id, connected.clinic_id)
    assert testapp.get("/v1/connections", headers=connected.headers).json["data"] == []


@pytest.mark.parametrize("flags, code", [
    ({"verified": False}, "not_verified"),
    ({"paid": False}, "workspace_plan_required"),
    ({"terms_accepted": False}, "workspace_plan_required"),
    ({"verified": False, "paid": False}, "not_verified"),
])
def test_workspace_state_refusals(world, testapp, flags, code):
    setup = world.connected(**flags)
    assert _clinic(testapp, setup.clinic_id, setup.key, 403).json["code"] == code
    # Refusals about the key's own workspace say nothing about whether the clinic exists.
    assert _clinic(testapp, uuid.uuid4(), setup.key, 403).json["code"] == code


def test_lapsed_verification_takes_effect_on_the_next_call(world, testapp, connected):
    world.set_workspace(connected.workspace_id, verified=False)
    assert _clinic(testapp, connected.clinic_id, connected.key, 403).json["code"] == "not_verified"
    world.set_workspace(connected.workspace_id, verified=True)
    _clinic(testapp, connected.clinic_id, connected.key, 404)


def test_test_keys_ignore_the_workspace_plan(world, testapp):
    workspace_id, sandbox_id = world.workspace(verified=False, paid=False, terms_accepted=False)
    key = world.key(workspace_id=workspace_id, mode="test")
    entries = testapp.get("/v1/connections", headers=_bearer(key)).json["data"]
    assert [e["clinic_id"] for e in entries] == [str(sandbox_id)]
    _clinic(testapp, sandbox_id, key, 404)
