"""The key and its reach of the clinic in the path are read in one statement (decision 0025): refusals still
take effect on the very next call, and the reach decided from that statement is exactly what reading the clinic
and the connection apart decides."""

import datetime
import uuid

import pytest
from sqlalchemy import select, update

from clinicrecords.access.identity import ClinicFound, read_key
from clinicrecords.access.keys import bearer_token, parse_key
from clinicrecords.access.models import Connection
from clinicrecords.access.interfaces import ALL_PERMISSIONS, Permission
from clinicrecords.access.permission_map import reach_of_key
from clinicrecords.api.problems import Problem
from clinicrecords.clinical.schemas import SANDBOX_ALLERGY_ID
from clinicrecords.clinics.models import Clinic


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


def _decision(identity, found):
    try:
        clinic, granted = reach_of_key(identity, found)
        return clinic.id, granted
    except KeyError:
        return "not_found"
    except Problem as problem:
        return problem.code


def _found_apart(db, identity, clinic_id, now):
    """What separate queries find of the clinic: its row, and the key's workspace's active connection to it."""
    connection = db.scalars(select(Connection).where(
        Connection.workspace_id == identity.workspace_id, Connection.clinic_id == clinic_id,
        Connection.revoked_at.is_(None), Connection.expires_at.is_(None) | (Connection.expires_at > now))).first()
    return ClinicFound(clinic_id, db.get(Clinic, clinic_id), tuple(connection.scopes) if connection else None,
                       connection.expires_at if connection else None)


@pytest.mark.parametrize("target", ["own", "sandbox", "connected", "unconnected", "revoked", "absent"])
@pytest.mark.parametrize("kind", ["clinic", "test", "live", "unverified"])
def test_the_reach_read_with_the_key_decides_as_separate_queries(world, app, kind, target):
    """Same decision (clinic, granted permissions, or the refusal) from the key's statement as from reading the
    clinic and the connection apart."""
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
    pepper, parsed = app.registry.settings["secrets.key_pepper"], parse_key(bearer_token(f"Bearer {key}"))
    now = datetime.datetime.now(datetime.UTC)
    with world.db() as db:
        assert read_key(db, pepper, parsed, None, now).found is None
        # Each clinic asked is read with the key for itself: what was found of one never decides another.
        for asked in (clinic_id, own):
            read = read_key(db, pepper, parsed, asked, now)
            assert read.found.clinic_id == asked
            assert _decision(read.identity, read.found) == _decision(read.identity,
                                                                     _found_apart(db, read.identity, asked, now))
