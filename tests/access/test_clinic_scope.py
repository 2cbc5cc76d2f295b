"""Traversal builds the clinic scope once, with the key read together with its reach of the clinic the path
names (one statement, before the request's transaction), and the gate runs once whatever the path."""

import types

import pytest

from clinicrecords.access import security_policy
from clinicrecords.access.identity import ClinicFound, read_key
from clinicrecords.access.interfaces import IReach, Permission
from clinicrecords.access.permission_map import reach_of_key
from clinicrecords.access.reach import ReachService
from clinicrecords.clinics.services import find_clinic
from clinicrecords.clinical.schemas import SANDBOX_ALLERGY_ID
from tests.common.statements import statements


@pytest.mark.parametrize("kind", ["test", "live"])
def test_the_key_and_its_reach_of_the_clinic_are_read_in_one_statement(world, app, testapp, engine, connected, kind,
                                                                       monkeypatch):
    if kind == "test":
        key, clinic_id = world.key(workspace_id=connected.workspace_id, mode="test"), connected.sandbox_clinic_id
        url = f"/v1/clinics/{clinic_id}/allergies/{SANDBOX_ALLERGY_ID}"
    else:
        key, clinic_id = connected.key, connected.clinic_id
        url = f"/v1/clinics/{clinic_id}/allergies"
    headers = {"Authorization": f"Bearer {key}"}
    testapp.get(url, headers=headers)  # the key's first use of the window also touches last_used_at
    app.registry["access.key_cache"].clear()  # a cold read (a warm one runs no key statement: test_key_cache)
    asked = []

    def spy(db, pepper, parsed, clinic_id, now, cache=None):
        asked.append(clinic_id)
        return read_key(db, pepper, parsed, clinic_id, now, cache)

    monkeypatch.setattr(security_policy, "read_key", spy)
    with statements(engine) as seen:
        testapp.get(url, headers=headers)
    assert asked == [clinic_id]
    reach = [s for s in seen if "api_keys" in s or "control.clinics" in s or "control.connections" in s]
    assert len(reach) == 1 and all(table in reach[0] for table in ("api_keys", "clinics", "connections"))


def test_the_clinics_collection_itself_passes_the_gate(world, testapp):
    key = world.key(clinic_id=world.clinic())
    for path in ("/v1/clinics", "/v1/clinics/", "/v1/clinics/not-a-uuid"):
        assert testapp.get(path, status=401).json["code"] == "invalid_key"
        assert testapp.get(path, headers={"Authorization": f"Bearer {key}", "Origin": "https://x.example"},
                           status=403).json["code"] == "browser_not_allowed"
        assert testapp.get(path, headers={"Authorization": f"Bearer {key}"}, status=404).json["code"] == \
            "not_found"


def test_the_gate_counts_a_request_once_even_when_traversal_stops_after_it(world, testapp):
    key = world.key(clinic_id=world.clinic(), rate_limit=1)
    first = testapp.get("/v1/clinics/not-a-uuid", headers={"Authorization": f"Bearer {key}"}, status=404)
    assert first.headers["RateLimit-Remaining"] == "0"
    assert testapp.get("/v1/clinics/not-a-uuid", headers={"Authorization": f"Bearer {key}"},
                       status=429).json["code"] == "rate_limited"


def test_reach_is_registered_by_interface_and_works_on_a_plain_identity(world, app):
    clinic_id = world.clinic()
    identity = types.SimpleNamespace(clinic_id=clinic_id, scopes=frozenset({Permission.AllergiesRead}))
    with world.request() as request:
        assert isinstance(request.find_service(IReach, context=None), ReachService)
        clinic, granted = reach_of_key(identity, ClinicFound(clinic_id, find_clinic(request.db, clinic_id), None))
        assert (clinic.id, granted) == (clinic_id, identity.scopes)
        with pytest.raises(KeyError):  # another clinic is out of a clinic key's reach
            other = world.clinic()
            reach_of_key(identity, ClinicFound(other, find_clinic(request.db, other), None))
