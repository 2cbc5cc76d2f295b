"""Keys narrowed at creation (`key create --scopes`) for each kind of key, and last_used_at."""

import datetime

import webtest
from sqlalchemy import select, update

from clinicrecords.access.models import ApiKey
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.access.helpers import admin, bearer


def _narrowed_key(*owner):
    status, result, _ = admin("key", "create", *owner, "--scopes", "patients:read")
    assert status == 0
    return result["key"]


def _proves_narrowing(testapp, clinic_id, key):
    testapp.get(f"/v1/clinics/{clinic_id}/patients/{SANDBOX_PATIENT_IDS[0]}", headers=bearer(key), status=200)
    response = testapp.get(f"/v1/clinics/{clinic_id}/patients/{SANDBOX_PATIENT_IDS[0]}/no-such", headers=bearer(key),
                           status=404)
    assert response.json["code"] == "not_found"
    response = testapp.post_json(f"/v1/clinics/{clinic_id}/patients", {}, headers=bearer(key), status=403)
    assert response.json["code"] == "scope_missing" and "patients:write" in response.json["detail"]
    [entry] = testapp.get("/v1/connections", headers=bearer(key)).json["data"]
    assert (entry["clinic_id"], entry["scopes"]) == (str(clinic_id), ["patients:read"])


def test_a_clinic_key_can_be_narrowed(world, testapp):
    clinic_id = world.clinic(seed=True)
    _proves_narrowing(testapp, clinic_id, _narrowed_key("--clinic", str(clinic_id)))
    # An unnarrowed key of the same clinic holds every permission.
    testapp.post_json(f"/v1/clinics/{clinic_id}/patients", {}, headers=bearer(world.key(clinic_id=clinic_id)),
                      status=400)


def test_a_test_key_can_be_narrowed(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    _proves_narrowing(testapp, sandbox_id, _narrowed_key("--workspace", str(workspace_id), "--mode", "test"))


def test_a_live_workspace_key_holds_its_scopes_and_the_grant_both(world, testapp):
    clinic_id = world.clinic(seed=True)
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, clinic_id, {"patients:read", "patients:write"})
    world.ready_for_live(workspace_id)
    _proves_narrowing(testapp, clinic_id, _narrowed_key("--workspace", str(workspace_id), "--mode", "live"))


def _last_used(engine, key_id):
    with engine.connect() as connection:
        return connection.execute(select(ApiKey.last_used_at).where(ApiKey.key_id == key_id)).scalar()


def test_last_used_at_is_set_at_most_once_per_minute(world, make_app, engine):
    wsgi_app = make_app()
    now = [datetime.datetime(2031, 5, 1, 9, 30, 5, tzinfo=datetime.UTC)]
    wsgi_app.registry["access.rate_limiter"].clock = lambda: now[0]
    app = webtest.TestApp(wsgi_app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    key_id, key = world.key_row(clinic_id=world.clinic())
    assert _last_used(engine, key_id) is None
    app.get("/v1/me", headers=bearer(key))
    first = _last_used(engine, key_id)
    assert first is not None
    sentinel = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
    with engine.begin() as connection:
        connection.execute(update(ApiKey).where(ApiKey.key_id == key_id).values(last_used_at=sentinel))
    now[0] += datetime.timedelta(seconds=30)
    app.get("/v1/me", headers=bearer(key))
    assert _last_used(engine, key_id) == sentinel
    now[0] += datetime.timedelta(minutes=1)
    app.get("/v1/me", headers=bearer(key))
    assert _last_used(engine, key_id) > sentinel
