"""Entering a clinic is access's one call (decision 0073): `enter` makes the key check, the reach, the
tenant binding and the scope; traversal calls it once per request whatever the path, the gate runs nowhere
else, and nothing of the clinic rides back up with the key's identity."""

import dataclasses

import pytest

from clinicrecords.access import entry
from clinicrecords.clinical.schemas import SANDBOX_ALLERGY_ID
from clinicrecords.clinics.models import Clinic
from clinicrecords.sandbox.interfaces import sandbox_id
from clinicrecords.test_helpers import resources as helper_resources
from tests.common.statements import statements

HELPER_ENCOUNTER = sandbox_id("encounter:app-draft-1")


@pytest.fixture
def entries(monkeypatch):
    """Every call of the entry, as [clinic id asked, what it returned (None when it refused)], through the real
    application."""
    calls = []
    real = entry.enter

    def spy(request, clinic_id=None, **kwargs):
        calls.append([clinic_id, None])
        calls[-1][1] = real(request, clinic_id, **kwargs)
        return calls[-1][1]

    monkeypatch.setattr(entry, "enter", spy)
    monkeypatch.setattr(helper_resources, "enter", spy)  # the helpers' sandbox clinic enters the same way
    return calls


def test_a_request_into_a_clinic_is_entered_once_with_the_clinic_the_path_names(world, testapp, connected, entries):
    key = world.key(workspace_id=connected.workspace_id, mode="test")
    url = f"/v1/clinics/{connected.sandbox_clinic_id}/allergies/{SANDBOX_ALLERGY_ID}"
    testapp.get(url, headers={"Authorization": f"Bearer {key}"}, status=200)
    [[clinic_id, scope]] = entries
    assert clinic_id == connected.sandbox_clinic_id
    assert scope.clinic.id == scope.clinic_id == connected.sandbox_clinic_id and scope.identity.is_test


def test_every_keyed_path_is_entered_once_and_no_public_or_portal_path_is(world, testapp, connected, entries):
    test_key = world.key(workspace_id=connected.workspace_id, mode="test")
    headers = {"Authorization": f"Bearer {test_key}"}
    sandbox = connected.sandbox_clinic_id
    paths = [
        ("/v1/me", 200, [None]),
        ("/v1/clinics", 404, [None]),
        ("/v1/clinics/not-a-uuid", 404, [None]),
        (f"/v1/clinics/{sandbox}/allergies", 200, [sandbox]),
        (f"/v1/clinics/{sandbox}/allergies/{SANDBOX_ALLERGY_ID}", 200, [sandbox]),
        (f"/v1/clinics/{connected.clinic_id}/allergies", 403, [connected.clinic_id]),  # sandbox_only: refused
        ("/v1/listings/search?q=x", None, [None]),
        ("/v1/test_helpers/clinics", 404, [None]),
        ("/v1/openapi.json", 200, []),
        ("/v1", 404, []),
        ("/portal/login", 200, []),
    ]
    for path, status, expected in paths:
        entries.clear()
        answer = testapp.get(path, headers=headers, expect_errors=True)
        assert status is None or answer.status_int == status, (path, answer.status)
        assert [clinic_id for clinic_id, _ in entries] == expected, path
    entries.clear()
    testapp.post_json(f"/v1/test_helpers/clinics/{sandbox}/encounters/touch",
                      {"encounter_id": str(HELPER_ENCOUNTER)}, headers=headers, status=200)
    assert [clinic_id for clinic_id, _ in entries] == [sandbox]


def test_the_identity_carries_nothing_of_the_clinic(world, testapp, connected, entries):
    for _ in range(2):  # read by the statement, then from the key cache
        testapp.get(f"/v1/clinics/{connected.clinic_id}/allergies", headers=connected.headers, status=200)
    for _, scope in entries:
        values = [getattr(scope.identity, field.name) for field in dataclasses.fields(scope.identity)]
        assert not any(isinstance(value, Clinic) or hasattr(value, "clinic") for value in values)
        assert scope.clinic.id == connected.clinic_id


def test_a_test_helper_reads_the_sandbox_clinic_with_the_key(world, app, testapp, engine, connected):
    """The helpers' sandbox clinic is entered as /v1/clinics/{clinic_id} is: the clinic comes with the key's own
    statement (cold) or from the key cache (warm), never from a query of its own."""
    key = world.key(workspace_id=connected.workspace_id, mode="test")
    url = f"/v1/test_helpers/clinics/{connected.sandbox_clinic_id}/encounters/touch"
    headers = {"Authorization": f"Bearer {key}"}
    body = {"encounter_id": str(HELPER_ENCOUNTER)}
    testapp.post_json(url, body, headers=headers, status=200)  # the key's first use also touches last_used_at
    app.registry["access.key_cache"].clear()
    for cached in (False, True):
        with statements(engine) as seen:
            testapp.post_json(url, body, headers=headers, status=200)
        clinic_reads = [s for s in seen if "control.clinics" in s]
        assert clinic_reads == ([] if cached else [s for s in clinic_reads if "control.api_keys" in s]), cached
        assert len(clinic_reads) == (0 if cached else 1)
