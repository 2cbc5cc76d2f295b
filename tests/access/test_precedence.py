"""docs/authentication.md, precedence of refusals: every pair of refusals that can collide."""

import uuid

import pytest
import webtest

from clinicrecords.access.keys import parse_key
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.access.helpers import bearer
from tests.common.world import World

OUTSIDE = {"REMOTE_ADDR": "198.51.100.7"}
INSIDE = {"REMOTE_ADDR": "192.0.2.7"}
ALLOW = ["192.0.2.0/24"]


def _strip(response):
    return {k: v for k, v in response.json.items() if k != "request_id"}


def test_invalid_key_beats_ip_refusal_for_a_revoked_key(world, testapp):
    key_id, key = world.key_row(clinic_id=world.clinic(), ip_allow=ALLOW)
    world.revoke_key(key_id)
    response = testapp.get("/v1/me", headers=bearer(key), extra_environ=OUTSIDE, status=401)
    assert response.json["code"] == "invalid_key"


def test_invalid_key_beats_ip_refusal_for_a_wrong_secret(world, testapp):
    parsed = parse_key(world.key(clinic_id=world.clinic(), ip_allow=ALLOW))
    forged = f"ehr_live_{parsed.key_id}_{'1' * 48}"
    assert testapp.get("/v1/me", headers=bearer(forged), extra_environ=OUTSIDE, status=401).json["code"] == \
        "invalid_key"


def test_ip_refusal_beats_another_clinic(world, testapp):
    key = world.key(clinic_id=world.clinic(), ip_allow=ALLOW)
    for clinic_id in (world.clinic(), uuid.uuid4()):
        response = testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=bearer(key), extra_environ=OUTSIDE,
                               status=403)
        assert response.json["code"] == "ip_not_allowed"


def test_ip_refusal_beats_rate_limit_and_is_not_counted(world, testapp):
    key = world.key(clinic_id=world.clinic(), ip_allow=ALLOW, rate_limit=1)
    for _ in range(3):
        response = testapp.get("/v1/me", headers=bearer(key), extra_environ=OUTSIDE, status=403)
        assert response.json["code"] == "ip_not_allowed"
        assert "RateLimit-Limit" not in response.headers
    assert testapp.get("/v1/me", headers=bearer(key), extra_environ=INSIDE, status=200).headers[
        "RateLimit-Remaining"] == "0"
    assert testapp.get("/v1/me", headers=bearer(key), extra_environ=INSIDE, status=429).json["code"] == \
        "rate_limited"


@pytest.mark.parametrize("kind", ["test", "unverified", "sandbox_plan"])
def test_rate_limit_beats_reach_refusals(world, testapp, kind):
    flags = {"unverified": {"verified": False}, "sandbox_plan": {"paid": False}}.get(kind, {})
    workspace_id, _ = world.workspace(**flags)
    key = world.key(workspace_id=workspace_id, mode="test" if kind == "test" else "live", rate_limit=1)
    # Both clinics built first: the two requests go back to back, inside one minute's window (a clinic built
    # between them, slow on a loaded machine, once let the second request open the next minute).
    first_clinic, second_clinic = world.clinic(), world.clinic()
    first = testapp.get(f"/v1/clinics/{first_clinic}/patients", headers=bearer(key), status=403)
    assert first.json["code"] in ("sandbox_only", "not_verified", "workspace_plan_required")
    assert first.headers["RateLimit-Remaining"] == "0"
    assert testapp.get(f"/v1/clinics/{second_clinic}/patients", headers=bearer(key), status=429).json[
        "code"] == "rate_limited"


def test_rate_limit_beats_not_found_and_scope_missing(world, testapp):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id, rate_limit=1, scopes={"allergies:read"})
    testapp.get("/v1/me", headers=bearer(key), status=200)
    for path in (f"/v1/clinics/{uuid.uuid4()}/patients", f"/v1/clinics/{clinic_id}/patients"):
        assert testapp.get(path, headers=bearer(key), status=429).json["code"] == "rate_limited"


def test_sandbox_only_beats_scope_missing(world, testapp, connected):
    key = world.key(workspace_id=connected.workspace_id, mode="test", scopes={"allergies:read"})
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=bearer(key), status=403)
    assert response.json["code"] == "sandbox_only"
    # In its own sandbox, the same key meets scope_missing.
    response = testapp.get(f"/v1/clinics/{connected.sandbox_clinic_id}/patients", headers=bearer(key), status=403)
    assert response.json["code"] == "scope_missing" and "patients:read" in response.json["detail"]


@pytest.mark.parametrize("flags, code", [
    ({"verified": False, "paid": False}, "not_verified"),
    ({"verified": False, "terms_accepted": False}, "not_verified"),
    ({"paid": False, "terms_accepted": False}, "workspace_plan_required"),
])
def test_not_verified_beats_workspace_plan_required(world, testapp, flags, code):
    setup = world.connected(**flags)
    for clinic_id in (setup.clinic_id, uuid.uuid4()):
        assert testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=setup.headers, status=403).json[
            "code"] == code


def test_workspace_refusals_beat_scope_missing(world, testapp):
    setup = world.connected(scopes={"allergies:read"}, verified=False)
    assert testapp.get(f"/v1/clinics/{setup.clinic_id}/patients", headers=setup.headers, status=403).json[
        "code"] == "not_verified"


def test_not_found_clinic_beats_scope_missing(world, testapp):
    key = world.key(clinic_id=world.clinic(), scopes={"allergies:read"})
    other = world.clinic()
    first = testapp.get(f"/v1/clinics/{other}/patients", headers=bearer(key), status=404)
    second = testapp.get(f"/v1/clinics/{uuid.uuid4()}/patients", headers=bearer(key), status=404)
    assert _strip(first) == _strip(second)


def test_scope_missing_beats_not_found_for_records_so_existence_never_leaks(world, testapp, engine):
    """A key without the collection's permissions gets the same 403 for an existing, a restricted and an
    absent record; a key that holds them gets the same 404 for the restricted and the absent one."""
    from sqlalchemy import update

    from clinicrecords.db.tenancy import schema_name
    from clinicrecords.patients.models import Patient

    clinic_id = world.clinic(seed=True)
    existing, restricted = SANDBOX_PATIENT_IDS[0], SANDBOX_PATIENT_IDS[1]
    with engine.begin() as connection:
        connection.execution_options(schema_translate_map={None: schema_name(clinic_id)}).execute(
            update(Patient).where(Patient.id == restricted).values(restricted=True))
    narrow = world.key(clinic_id=clinic_id, scopes={"allergies:read"})
    answers = [testapp.get(f"/v1/clinics/{clinic_id}/patients/{patient_id}", headers=bearer(narrow), status=403)
               for patient_id in (existing, restricted, uuid.uuid4(), "not-a-uuid")]
    assert all(_strip(a) == _strip(answers[0]) for a in answers)
    assert answers[0].json["code"] == "scope_missing" and "patients:read" in answers[0].json["detail"]
    patch = testapp.patch_json(f"/v1/clinics/{clinic_id}/patients/{uuid.uuid4()}", {}, headers=bearer(narrow),
                               status=403)
    assert "patients:write" in patch.json["detail"]

    reader = world.key(clinic_id=clinic_id, scopes={"patients:read"})
    testapp.get(f"/v1/clinics/{clinic_id}/patients/{existing}", headers=bearer(reader), status=200)
    hidden = [testapp.get(f"/v1/clinics/{clinic_id}/patients/{patient_id}", headers=bearer(reader), status=404)
              for patient_id in (restricted, uuid.uuid4())]
    assert _strip(hidden[0]) == _strip(hidden[1])
    # Holding one of the collection's permissions (write) is enough to pass the guard; the view decides.
    writer = world.key(clinic_id=clinic_id, scopes={"patients:write"})
    response = testapp.get(f"/v1/clinics/{clinic_id}/patients/{existing}", headers=bearer(writer), status=403)
    assert "patients:read" in response.json["detail"]


@pytest.mark.commits  # committed for real: the count travels with the BEGIN of a transaction the refusal rolls back
def test_a_count_sent_with_the_requests_begin_stands_when_the_request_is_refused(make_app):
    app = make_app()
    world = World(app.registry)
    clinic_id, other_clinic_id = world.clinic(), world.clinic()
    key = world.key(clinic_id=clinic_id, rate_limit=2)
    client = webtest.TestApp(app, extra_environ=INSIDE)
    client.get(f"/v1/clinics/{other_clinic_id}/patients", headers=bearer(key), status=404)
    assert client.get(f"/v1/clinics/{clinic_id}/patients", headers=bearer(key)).headers["RateLimit-Remaining"] == "0"
    assert client.get(f"/v1/clinics/{clinic_id}/patients", headers=bearer(key), status=429).json["code"] == \
        "rate_limited"
