"""The key and its reach of the clinic in the path are read in one statement (issue 10): refusals still
take effect on the very next call, and the prefetched reach decides exactly as the separate query does."""

import datetime
import uuid

import pytest
from sqlalchemy import update

from clinicrecords.access.identity import authenticate
from clinicrecords.access.models import Connection
from clinicrecords.access.interfaces import ALL_PERMISSIONS, Permission
from clinicrecords.access.reach import ReachService
from clinicrecords.api.problems import Problem
from clinicrecords.clinical.schemas import SANDBOX_ALLERGY_ID


def _allergies(testapp, clinic_id, key, status):
    return testapp.get(f"/v1/clinics/{clinic_id}/allergies", headers={"Authorization": f"Bearer {key}"},
                       status=status)


def test_a_revoked_connection_is_refused_on_the_next_call_into_the_clinic(world, testapp, connected):
    _allergies(testapp, connected.clinic_id, connected.key, 200)
    world.revoke_connection(connected.workspace_id, connected.clinic_id)
    assert _allergies(testapp, connected.clinic_id, connected.key, 404).json["code"] == "not_found"


def test_a_narrowed_connection_is_refused_on_the_next_call(world, testapp, connected):
    _allergies(testapp, connected.clinic_id, connected.key, 200)
    world.grant(connected.workspace_id, connected.clinic_id, {Permission.PatientsRead})
    assert _allergies(testapp, connected.clinic_id, connected.key, 403).json["code"] == "scope_missing"


def test_an_expired_connection_is_refused(world, testapp, connected):
    _allergies(testapp, connected.clinic_id, connected.key, 200)
    with world.db() as db:
        db.execute(update(Connection).where(Connection.clinic_id == connected.clinic_id).values(
            expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)))
    _allergies(testapp, connected.clinic_id, connected.key, 404)


def test_a_revoked_key_is_refused_on_the_next_call_into_the_clinic(world, testapp):
    clinic_id = world.clinic()
    key_id, key = world.key_row(clinic_id=clinic_id)
    _allergies(testapp, clinic_id, key, 200)
    world.revoke_key(key_id)
    assert _allergies(testapp, clinic_id, key, 401).json["code"] == "invalid_key"


def test_a_suspended_workspace_is_refused_on_the_next_call(world, testapp, connected):
    _allergies(testapp, connected.clinic_id, connected.key, 200)
    world.set_workspace(connected.workspace_id, paid=False)
    assert _allergies(testapp, connected.clinic_id, connected.key, 403).json["code"] == "workspace_plan_required"


def test_every_key_kind_still_reaches_what_it_did(world, testapp, connected):
    clinic_id = world.clinic()
    clinic_key = world.key(clinic_id=clinic_id)
    test_key = world.key(workspace_id=connected.workspace_id, mode="test")
    _allergies(testapp, clinic_id, clinic_key, 200)
    _allergies(testapp, connected.clinic_id, clinic_key, 404)
    assert testapp.get(f"/v1/clinics/{connected.sandbox_clinic_id}/allergies/{SANDBOX_ALLERGY_ID}",
                       headers={"Authorization": f"Bearer {test_key}"}).json["data"]["id"] == str(SANDBOX_ALLERGY_ID)
    assert _allergies(testapp, clinic_id, test_key, 403).json["code"] == "sandbox_only"
    _allergies(testapp, connected.sandbox_clinic_id, connected.key, 404)
    _allergies(testapp, clinic_id, connected.key, 404)
    _allergies(testapp, uuid.uuid4(), connected.key, 404)


def _decision(db, identity, clinic_id):
    try:
        clinic, granted = ReachService(db).clinic(identity, clinic_id)
        return clinic.id, granted
    except KeyError:
        return "not_found"
    except Problem as problem:
        return problem.code


@pytest.mark.parametrize("target", ["own", "sandbox", "connected", "unconnected", "revoked", "absent"])
@pytest.mark.parametrize("kind", ["clinic", "test", "live", "unverified"])
def test_the_prefetched_reach_decides_as_the_separate_query(world, app, kind, target):
    """Same decision (clinic, granted permissions, or the refusal) with and without the prefetched row."""
    own = world.clinic()
    workspace_id, sandbox_id = world.workspace(verified=kind != "unverified")
    connected, unconnected, revoked = world.clinic(), world.clinic(), world.clinic()
    world.grant(workspace_id, connected, {Permission.AllergiesRead, Permission.PatientsRead})
    world.grant(workspace_id, revoked, ALL_PERMISSIONS)
    world.revoke_connection(workspace_id, revoked)
    key = world.key(clinic_id=own, scopes={Permission.AllergiesRead}) if kind == "clinic" else world.key(
        workspace_id=workspace_id, mode="test" if kind == "test" else "live")
    clinic_id = {"own": own, "sandbox": sandbox_id, "connected": connected, "unconnected": unconnected,
                 "revoked": revoked, "absent": uuid.uuid4()}[target]
    pepper = app.registry.settings["secrets.key_pepper"]
    with world.db() as db:
        plain = authenticate(db, pepper, f"Bearer {key}")
        folded = authenticate(db, pepper, f"Bearer {key}", clinic_id=clinic_id)
        assert plain.prefetched is None and folded.prefetched.clinic_id == clinic_id
        assert _decision(db, folded, clinic_id) == _decision(db, plain, clinic_id)
        # A prefetch for another clinic is never used for this one.
        assert _decision(db, folded, own) == _decision(db, plain, own)
