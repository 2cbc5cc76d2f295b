"""Content negotiation: FHIR R4 on reads (validated against the fhir.resources R4B models), searchset
Bundles with a `next` link carrying the cursor, 406 when neither shape is acceptable, and FHIR bodies refused
on writes (415 by content type, 400 by `resourceType`) before anything is read or written."""

import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

from clinicrecords.patients.schemas import PatientCreate
from tests.common.fhir import assert_valid_fhir

FHIR = "application/fhir+json"


@pytest.fixture
def patients(testapp, connected):
    url = f"/v1/clinics/{connected.clinic_id}/patients"
    ids = [testapp.post_json(url, dict(PatientCreate.EXAMPLE, family_name=f"F{n}"),
                             headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())}).json["data"]["id"]
           for n in range(3)]
    return url, ids


def test_patient_in_fhir_validates(testapp, connected, patients):
    url, ids = patients
    response = testapp.get(f"{url}/{ids[0]}", headers={**connected.headers, "Accept": FHIR})
    assert response.headers["Content-Type"] == "application/fhir+json; fhirVersion=4.0"
    patient = assert_valid_fhir(response.json, "Patient")
    assert patient.id == ids[0] and patient.name[0].family == "F0"
    assert str(patient.birthDate) == PatientCreate.EXAMPLE["birth_date"]


def test_list_in_fhir_is_a_searchset_bundle_whose_next_link_continues(testapp, connected, patients):
    url, ids = patients
    headers = {**connected.headers, "Accept": FHIR}
    first = testapp.get(url, {"limit": 2}, headers=headers)
    assert first.headers["Content-Type"] == "application/fhir+json; fhirVersion=4.0"
    bundle = assert_valid_fhir(first.json, "Bundle")
    assert bundle.type == "searchset"
    assert [entry.resource.id for entry in bundle.entry] == ids[:2]
    assert all(entry.fullUrl.endswith(entry.resource.id) for entry in bundle.entry)
    [next_link] = [link.url for link in bundle.link if link.relation == "next"]
    query = parse_qs(urlsplit(next_link).query)
    assert query["limit"] == ["2"] and query["starting_after"]
    second = testapp.get(urlsplit(next_link).path, {k: v[0] for k, v in query.items()}, headers=headers).json
    assert_valid_fhir(second, "Bundle")
    assert [entry["resource"]["id"] for entry in second["entry"]] == ids[2:]
    assert not [link for link in second["link"] if link["relation"] == "next"]


def test_sandbox_patients_validate_in_fhir(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    headers = {"Authorization": f"Bearer {world.key(workspace_id=workspace_id, mode='test')}", "Accept": FHIR}
    bundle = testapp.get(f"/v1/clinics/{sandbox_id}/patients", headers=headers).json
    assert len(assert_valid_fhir(bundle, "Bundle").entry) == 5


@pytest.mark.parametrize("accept", ["text/html", "application/xml", "application/fhir+xml"])
def test_unacceptable_accept_is_406(testapp, connected, patients, accept):
    url, ids = patients
    for target in (url, f"{url}/{ids[0]}"):
        response = testapp.get(target, headers={**connected.headers, "Accept": accept}, status=406)
        assert response.json["code"] == "not_acceptable"


def test_accept_preferences_choose_the_shape(testapp, connected, patients):
    url, ids = patients
    for accept, expected in [("*/*", "application/json"), ("application/json, application/fhir+json;q=0.5",
                             "application/json"), ("application/json;q=0.1, application/fhir+json", FHIR)]:
        response = testapp.get(f"{url}/{ids[0]}", headers={**connected.headers, "Accept": accept})
        assert response.content_type == expected


def _count(testapp, connected, url):
    return len(testapp.get(url, {"limit": 100}, headers=connected.headers).json["data"])


def test_fhir_content_type_on_create_is_415_and_writes_nothing(testapp, connected, patients):
    url, _ = patients
    body = b'{"resourceType": "Patient", "name": [{"family": "X", "given": ["Y"]}], "birthDate": "2000-01-01"}'
    response = testapp.post(url, body, headers={**connected.headers, "Idempotency-Key": "fhir-1",
                                                "Content-Type": FHIR}, status=415)
    assert response.json["code"] == "unsupported_media_type"
    assert "application/json" in response.json["detail"]
    assert _count(testapp, connected, url) == 3


def test_resource_type_in_a_json_body_is_400_on_create_and_update(testapp, connected, patients):
    url, ids = patients
    body = dict(PatientCreate.EXAMPLE, resourceType="Patient")
    response = testapp.post_json(url, body, headers={**connected.headers, "Idempotency-Key": "fhir-2"}, status=400)
    assert response.json["errors"] == [{"pointer": "/resourceType", "message": response.json["errors"][0]["message"]}]
    assert _count(testapp, connected, url) == 3
    before = testapp.get(f"{url}/{ids[0]}", headers=connected.headers).json
    testapp.patch_json(f"{url}/{ids[0]}", {"resourceType": "Patient", "phone": "+1 555 0000"},
                       headers=connected.headers, status=400)
    testapp.patch(f"{url}/{ids[0]}", b'{"phone": "+1 555 0000"}', headers={**connected.headers,
                  "Content-Type": FHIR}, status=415)
    assert testapp.get(f"{url}/{ids[0]}", headers=connected.headers).json == before


def test_writes_answer_plain_json_even_when_fhir_is_asked(testapp, connected, patients):
    url, _ = patients
    response = testapp.post_json(url, PatientCreate.EXAMPLE, headers={
        **connected.headers, "Idempotency-Key": str(uuid.uuid4()), "Accept": FHIR}, status=201)
    assert response.content_type == "application/json" and "data" in response.json


def test_an_empty_page_is_a_bundle_without_entries(testapp, connected):
    bundle = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", {"family_name": "Nobody"},
                         headers={**connected.headers, "Accept": FHIR}).json
    assert_valid_fhir(bundle, "Bundle")
    assert "entry" not in bundle
