"""A cached key stays correct (decision 0036): every change to what decides a key's validity and reach,
made here by the operator CLI or a portal service, is refused on the very next call by another server process
whose key cache held the key, and by this process's own application (the triggers of c22_reach_version)."""

import datetime
import time

import pytest

from clinicrecords.access.interfaces import ALL_PERMISSIONS, Permission
from clinicrecords.portal.developer.keys.interfaces import IKeyService
from tests.common.app_process import app_process
from tests.common.cli import admin

pytestmark = pytest.mark.commits  # the other process sees only what is committed


@pytest.fixture(scope="module")
def other(app, tmp_path_factory):
    with app_process(tmp_path_factory.mktemp("other-process"), app.registry["db.engine"]) as get:
        yield get


def _allergies(clinic_id):
    return f"/v1/clinics/{clinic_id}/allergies"


def _warm(testapp, other, path, headers):
    """Twice in each process: the first reads the key into its cache, the second is served from it."""
    for _ in range(2):
        assert other(path, headers)[0] == 200
        testapp.get(path, headers=headers, status=200)


def _refused_by_both(testapp, other, path, headers, status, code):
    status_there, body = other(path, headers)
    assert (status_there, body["code"]) == (status, code)
    assert testapp.get(path, headers=headers, status=status).json["code"] == code


def _iso(seconds_from_now):
    return (datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=seconds_from_now)).isoformat()


def _until(moment):
    time.sleep(max(0.0, (datetime.datetime.fromisoformat(moment) - datetime.datetime.now(datetime.UTC))
                   .total_seconds()) + 0.05)


def test_a_revoked_key(world, testapp, other):
    clinic_id = world.clinic()
    key_id, key = world.key_row(clinic_id=clinic_id)
    headers = {"Authorization": f"Bearer {key}"}
    _warm(testapp, other, _allergies(clinic_id), headers)
    assert admin("key", "revoke", key_id)[0] == 0
    _refused_by_both(testapp, other, _allergies(clinic_id), headers, 401, "invalid_key")


def test_a_narrowed_connection(world, testapp, other):
    connected = world.connected()
    _warm(testapp, other, _allergies(connected.clinic_id), connected.headers)
    assert admin("connection", "grant", "--workspace", connected.workspace_id, "--clinic", connected.clinic_id,
                 "--scopes", Permission.PatientsRead)[0] == 0
    _refused_by_both(testapp, other, _allergies(connected.clinic_id), connected.headers, 403, "scope_missing")


def test_a_disconnected_clinic(world, testapp, other):
    connected = world.connected()
    _warm(testapp, other, _allergies(connected.clinic_id), connected.headers)
    assert admin("connection", "revoke", "--workspace", connected.workspace_id,
                 "--clinic", connected.clinic_id)[0] == 0
    _refused_by_both(testapp, other, _allergies(connected.clinic_id), connected.headers, 404, "not_found")


@pytest.mark.parametrize("change, code", [("--unverified", "not_verified"),
                                          ("--sandbox-plan", "workspace_plan_required")])
def test_a_lapsed_verification_or_plan(world, testapp, other, change, code):
    connected = world.connected()
    _warm(testapp, other, _allergies(connected.clinic_id), connected.headers)
    assert admin("workspace", "set", connected.workspace_id, change)[0] == 0
    _refused_by_both(testapp, other, _allergies(connected.clinic_id), connected.headers, 403, code)


def test_a_changed_ip_list(world, testapp, other):
    connected = world.connected()
    _warm(testapp, other, _allergies(connected.clinic_id), connected.headers)
    with world.request() as request:
        keys = request.find_service(IKeyService)
        key, = keys.keys(connected.workspace_id)
        keys.set_ip_allow(connected.workspace_id, key, "10.0.0.0/8", account_id=None)
    _refused_by_both(testapp, other, _allergies(connected.clinic_id), connected.headers, 403, "ip_not_allowed")
    with world.request() as request:
        keys = request.find_service(IKeyService)
        keys.set_ip_allow(connected.workspace_id, keys.keys(connected.workspace_id)[0], "127.0.0.1/32", None)
    _warm(testapp, other, _allergies(connected.clinic_id), connected.headers)  # widened again: let through


def test_an_expired_key(world, testapp, other):
    """Expiry changes nothing in the database: the cached expiry is compared with the clock on every call."""
    clinic_id = world.clinic()
    expires_at = _iso(4)
    status, created, _ = admin("key", "create", "--clinic", clinic_id, "--expires-at", expires_at)
    headers = {"Authorization": f"Bearer {created['key']}"}
    _warm(testapp, other, _allergies(clinic_id), headers)
    _until(expires_at)
    _refused_by_both(testapp, other, _allergies(clinic_id), headers, 401, "invalid_key")


def test_an_expired_connection(world, testapp, other):
    connected = world.connected()
    expires_at = _iso(4)
    assert admin("connection", "grant", "--workspace", connected.workspace_id, "--clinic", connected.clinic_id,
                 "--scopes", ",".join(sorted(ALL_PERMISSIONS)), "--expires-at", expires_at)[0] == 0
    _warm(testapp, other, _allergies(connected.clinic_id), connected.headers)
    _until(expires_at)
    _refused_by_both(testapp, other, _allergies(connected.clinic_id), connected.headers, 404, "not_found")
