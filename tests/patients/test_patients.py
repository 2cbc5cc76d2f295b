import uuid

import pytest

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS, PatientCreate


def _new_patient(testapp, connected, **overrides):
    body = dict(PatientCreate.EXAMPLE, **overrides)
    return testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", body,
                             headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())}, status=201)


def test_create_read_update_list(testapp, connected):
    created = _new_patient(testapp, connected).json["data"]
    url = f"/v1/clinics/{connected.clinic_id}/patients/{created['id']}"
    assert testapp.get(url, headers=connected.headers).json["data"] == created
    updated = testapp.patch_json(url, {"phone": "+1 555 0111"}, headers=connected.headers).json["data"]
    assert updated["phone"] == "+1 555 0111" and updated["family_name"] == created["family_name"]
    listed = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers).json
    assert [p["id"] for p in listed["data"]] == [created["id"]]


@pytest.mark.parametrize("field", ["allergies", "current_medications", "chronic_conditions"])
def test_clinical_lists_are_refused_naming_the_route_to_use(testapp, connected, field):
    body = dict(PatientCreate.EXAMPLE, **{field: []})
    response = testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", body,
                                 headers={**connected.headers, "Idempotency-Key": "k-" + field}, status=400)
    [error] = response.json["errors"]
    assert error["pointer"] == f"/{field}"
    assert "/v1/clinics/" in error["message"]



@pytest.mark.parametrize("field", ["allergies", "current_medications", "chronic_conditions"])
@pytest.mark.parametrize("value", [[], [{"text": "Peanut"}], None])
def test_a_patient_patch_carrying_a_clinical_list_is_refused_and_changes_nothing(testapp, connected, field, value):
    """Spec: refused in create, update and import; a PATCH naming one changes nothing, not even its other
    fields."""
    created = _new_patient(testapp, connected).json["data"]
    url = f"/v1/clinics/{connected.clinic_id}/patients/{created['id']}"
    response = testapp.patch_json(url, {"phone": "+1 555 0199", field: value}, headers=connected.headers, status=400)
    assert response.json["code"] == "invalid_request"
    [error] = response.json["errors"]
    assert error["pointer"] == f"/{field}" and "/v1/clinics/" in error["message"]
    assert testapp.get(url, headers=connected.headers).json["data"] == created


def test_validation_errors_point_into_the_body(testapp, connected):
    body = dict(PatientCreate.EXAMPLE, birth_date="1988-13-40", sex="robot", address={"country": "usa"})
    del body["given_name"]
    response = testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", body,
                                 headers={**connected.headers, "Idempotency-Key": "bad"}, status=400)
    assert response.json["code"] == "invalid_request"
    pointers = {e["pointer"] for e in response.json["errors"]}
    assert pointers == {"/given_name", "/birth_date", "/sex", "/address/country"}


def test_sandbox_has_the_seeded_patients_with_fixed_ids(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    listed = testapp.get(f"/v1/clinics/{sandbox_id}/patients", headers={"Authorization": f"Bearer {key}"}).json
    # Seeded in one transaction: equal created_at, so the id breaks the tie.
    assert [p["id"] for p in listed["data"]] == sorted(map(str, SANDBOX_PATIENT_IDS))


def test_patient_reads_need_the_permission(world, testapp):
    narrow = world.connected(scopes={"allergies:read"})
    response = testapp.get(f"/v1/clinics/{narrow.clinic_id}/patients", headers=narrow.headers, status=403)
    assert response.json["code"] == "scope_missing"
    assert "patients:read" in response.json["detail"]


def test_fhir_patient(testapp, connected):
    created = _new_patient(testapp, connected).json["data"]
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients/{created['id']}",
                           headers={**connected.headers, "Accept": "application/fhir+json"})
    assert response.headers["Content-Type"] == "application/fhir+json; fhirVersion=4.0"
    assert response.json["resourceType"] == "Patient" and response.json["id"] == created["id"]
