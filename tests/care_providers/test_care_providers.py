import json
import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.care_providers.models import CareProvider
from clinicrecords.care_providers.schemas import (
    SANDBOX_APP_CARE_PROVIDER_ID,
    SANDBOX_CARE_PROVIDER_IDS,
    CareProviderCreate,
    CareProviderUpdate,
)
from tests.common.clinical import add_patient, admin, clinic_db, headers, idem, restrict, sandbox
from tests.common.fhir import assert_valid_fhir

FHIR = "application/fhir+json"
PATIENT_LINK = "urn:clinicrecords:fhir:extension:care-provider-patient"
FIELDS = {"id", "patient_id", "type", "name", "is_primary", "source", "editable", "practice_name", "specialty",
          "npi", "phone", "fax", "address", "origin_assistant_name", "created_at", "updated_at"}


@pytest.fixture
def box(world):
    clinic_id, key = sandbox(world)
    return clinic_id, key, f"/v1/clinics/{clinic_id}/care-providers"


def test_list_shows_every_contact_with_source_and_editable_and_never_the_clinics_notes(testapp, box):
    clinic_id, key, url = box
    mine = testapp.post_json(url, CareProviderCreate.EXAMPLE, headers=idem(key), status=201)
    assert mine.headers["Location"].endswith(f"{url}/{mine.json['data']['id']}")
    response = testapp.get(url, headers=headers(key))
    listed = {c["id"]: c for c in response.json["data"]}
    assert set(listed) == {*map(str, SANDBOX_CARE_PROVIDER_IDS), str(SANDBOX_APP_CARE_PROVIDER_ID),
                           mine.json["data"]["id"]}
    # The seeded contact the sandbox's own workspace added is editable by its test keys, like one just posted.
    assert listed[str(SANDBOX_APP_CARE_PROVIDER_ID)]["editable"] is True
    assert all(set(c) == FIELDS for c in listed.values())
    assert {(c["source"], c["editable"]) for c in listed.values()} == {("clinic", False), ("api", True)}
    # The seeded contacts carry clinic notes; no answer ever shows them.
    assert "notes" not in response.text and "waiting times" not in response.text
    one = testapp.get(f"{url}/{SANDBOX_CARE_PROVIDER_IDS[1]}", headers=headers(key))
    assert "waiting times" not in one.text and one.json["data"]["type"] == "specialist"



def _extensions(resource):
    return {extension["url"].rsplit(":", 1)[1]: extension for extension in resource.get("extension", [])}


def test_a_contact_reads_as_a_fhir_practitioner_linked_to_its_patient(testapp, box):
    clinic_id, key, url = box
    created = testapp.post_json(url, CareProviderCreate.EXAMPLE, headers=idem(key), status=201).json["data"]
    response = testapp.get(f"{url}/{created['id']}", headers=headers(key, Accept=FHIR))
    assert response.headers["Content-Type"] == "application/fhir+json; fhirVersion=4.0"
    resource = response.json
    practitioner = assert_valid_fhir(resource, "Practitioner")
    assert practitioner.id == created["id"] and practitioner.name[0].text == "Dr. Lena Osei"
    assert resource["identifier"] == [{"system": "http://hl7.org/fhir/sid/us-npi", "value": "1234567893"}]
    assert {(t["system"], t["value"]) for t in resource["telecom"]} == {("phone", "+1 555 0140"),
                                                                        ("fax", "+1 555 0141")}
    assert resource["address"] == [{"use": "work", "text": "40 Quay Street, Springfield, MA 01101"}]
    extensions = _extensions(resource)
    assert extensions["care-provider-patient"] == {
        "url": PATIENT_LINK, "valueReference": {"reference": f"Patient/{created['patient_id']}", "type": "Patient"}}
    assert extensions["care-provider-type"]["valueString"] == "specialist"
    assert extensions["care-provider-primary"]["valueBoolean"] is False
    assert extensions["care-provider-source"]["valueString"] == "api"
    assert extensions["care-provider-editable"]["valueBoolean"] is True
    assert extensions["care-provider-specialty"]["valueString"] == "dermatology"
    assert extensions["care-provider-practice"]["valueString"] == "Harbour Dermatology"
    assert extensions["origin-assistant-name"]["valueString"] == "Intake Assistant"


def test_the_contact_list_reads_as_a_fhir_searchset_and_never_shows_the_clinic_s_notes(testapp, box):
    clinic_id, key, url = box
    first = testapp.get(url, {"limit": 2}, headers=headers(key, Accept=FHIR))
    bundle = assert_valid_fhir(first.json, "Bundle")
    assert bundle.type == "searchset" and len(bundle.entry) == 2
    assert all(entry.resource.get_resource_type() == "Practitioner" for entry in bundle.entry)
    [next_link] = [link.url for link in bundle.link if link.relation == "next"]
    rest = testapp.get(next_link.replace("http://localhost", ""), headers=headers(key, Accept=FHIR)).json
    assert_valid_fhir(rest, "Bundle")
    every = first.json["entry"] + rest["entry"]
    assert {entry["resource"]["id"] for entry in every} == {*map(str, SANDBOX_CARE_PROVIDER_IDS),
                                                            str(SANDBOX_APP_CARE_PROVIDER_ID)}
    # The seeded contacts carry clinic notes; the FHIR form never shows them either.
    assert "waiting times" not in first.text + json.dumps(rest) and "Prefers fax" not in first.text + json.dumps(rest)
    clinic_contact = next(entry["resource"] for entry in every
                          if entry["resource"]["id"] == str(SANDBOX_CARE_PROVIDER_IDS[0]))
    assert _extensions(clinic_contact)["care-provider-editable"]["valueBoolean"] is False
    assert _extensions(clinic_contact)["care-provider-primary"]["valueBoolean"] is True
    assert "origin-assistant-name" not in _extensions(clinic_contact)


def test_a_restricted_patient_s_contact_is_the_same_404_in_fhir(world, testapp, connected):
    url = f"/v1/clinics/{connected.clinic_id}/care-providers"
    patient_id = add_patient(world, connected.clinic_id)
    body = dict(CareProviderCreate.EXAMPLE, patient_id=str(patient_id))
    created = testapp.post_json(url, body, headers=idem(connected.key), status=201).json["data"]
    restrict(world, connected.clinic_id, patient_id)
    fhir = {**connected.headers, "Accept": FHIR}
    assert testapp.get(f"{url}/{created['id']}", headers=fhir, status=404).json["code"] == "not_found"
    assert "entry" not in testapp.get(url, headers=fhir).json


def test_post_is_saved_at_once_and_patch_and_delete_work_on_own_contacts(testapp, box):
    clinic_id, key, url = box
    created = testapp.post_json(url, CareProviderCreate.EXAMPLE, headers=idem(key), status=201).json["data"]
    assert (created["source"], created["editable"], created["npi"]) == ("api", True, "1234567893")
    item = f"{url}/{created['id']}"
    patched = testapp.patch_json(item, CareProviderUpdate.EXAMPLE, headers=headers(key)).json["data"]
    assert (patched["phone"], patched["is_primary"], patched["name"]) == ("+1 555 0142", True, created["name"])
    cleared = testapp.patch_json(item, {"fax": None}, headers=headers(key)).json["data"]
    assert cleared["fax"] is None
    response = testapp.delete(item, headers=headers(key), status=204)
    assert response.body == b""
    testapp.get(item, headers=headers(key), status=404)


def test_idempotency_key_is_required_and_replays(testapp, box):
    clinic_id, key, url = box
    testapp.post_json(url, CareProviderCreate.EXAMPLE, headers=headers(key), status=400)
    same = idem(key)
    first = testapp.post_json(url, CareProviderCreate.EXAMPLE, headers=same, status=201)
    again = testapp.post_json(url, CareProviderCreate.EXAMPLE, headers=same, status=201)
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"



def test_a_delete_retried_with_its_idempotency_key_replays_the_first_answer(testapp, box):
    clinic_id, key, url = box
    created = testapp.post_json(url, CareProviderCreate.EXAMPLE, headers=idem(key), status=201).json["data"]
    same = idem(key)
    first = testapp.delete(f"{url}/{created['id']}", headers=same, status=204)
    again = testapp.delete(f"{url}/{created['id']}", headers=same, status=204)
    assert again.body == first.body == b"" and again.headers["Idempotent-Replayed"] == "true"
    testapp.delete(f"{url}/{created['id']}", headers=idem(key), status=404)  # a new key runs again



def test_a_retried_delete_replays_only_its_own_request_and_only_while_the_clinic_is_reached(world, testapp,
                                                                                            connected):
    url = f"/v1/clinics/{connected.clinic_id}/care-providers"
    body = dict(CareProviderCreate.EXAMPLE, patient_id=str(add_patient(world, connected.clinic_id)))
    created = testapp.post_json(url, body, headers=idem(connected.key), status=201).json["data"]
    same = idem(connected.key)
    testapp.delete(f"{url}/{created['id']}", headers=same, status=204)
    # The key once used for another request: a conflict, as on any route.
    other = testapp.delete(f"{url}/{uuid.uuid4()}", headers=same, status=409)
    assert other.json["code"] == "idempotency_key_conflict"
    world.revoke_connection(connected.workspace_id, connected.clinic_id)
    # A clinic the key no longer reaches answers as it always does: nothing is replayed from it.
    gone = testapp.delete(f"{url}/{created['id']}", headers=same, status=404)
    assert gone.json["code"] == "not_found" and "Idempotent-Replayed" not in gone.headers


def test_clinic_contacts_are_clinic_managed(testapp, box):
    clinic_id, key, url = box
    item = f"{url}/{SANDBOX_CARE_PROVIDER_IDS[0]}"
    assert testapp.patch_json(item, {"phone": "1"}, headers=headers(key), status=409).json["code"] == \
        "care_provider_clinic_managed"
    assert testapp.delete(item, headers=headers(key), status=409).json["code"] == "care_provider_clinic_managed"


def test_another_apps_contact_is_not_editable(world, testapp, connected):
    patient_id = add_patient(world, connected.clinic_id)
    url = f"/v1/clinics/{connected.clinic_id}/care-providers"
    body = dict(CareProviderCreate.EXAMPLE, patient_id=str(patient_id))
    created = testapp.post_json(url, body, headers=idem(connected.key), status=201).json["data"]
    other_workspace, _ = world.workspace(name="Other app")
    world.grant(other_workspace, connected.clinic_id)
    other = world.key(workspace_id=other_workspace, mode="live")
    assert testapp.get(f"{url}/{created['id']}", headers=headers(other)).json["data"]["editable"] is False
    for call in (lambda: testapp.patch_json(f"{url}/{created['id']}", {"name": "X"}, headers=headers(other),
                                            status=409),
                 lambda: testapp.delete(f"{url}/{created['id']}", headers=headers(other), status=409)):
        assert call().json["code"] == "care_provider_clinic_managed"
    # The clinic's own key is another app too.
    clinic_key = world.key(clinic_id=connected.clinic_id)
    testapp.delete(f"{url}/{created['id']}", headers=headers(clinic_key), status=409)


@pytest.mark.parametrize("npi", ["1234567890", "123456789", "abcdefghij"])
def test_npi_is_validated_with_its_check_digit(testapp, box, npi):
    clinic_id, key, url = box
    response = testapp.post_json(url, dict(CareProviderCreate.EXAMPLE, npi=npi), headers=idem(key), status=400)
    assert response.json["errors"] == [{"pointer": "/npi", "message": response.json["errors"][0]["message"]}]
    assert npi not in response.text


@pytest.mark.parametrize("overrides, pointer", [
    ({"type": "friend"}, "/type"), ({"name": ""}, "/name"), ({"patient_id": str(uuid.uuid4())}, "/patient_id"),
    ({"clinic_notes": "x"}, "/clinic_notes"), ({"source": "clinic"}, "/source"),
])
def test_create_validation(testapp, box, overrides, pointer):
    clinic_id, key, url = box
    response = testapp.post_json(url, dict(CareProviderCreate.EXAMPLE, **overrides), headers=idem(key), status=400)
    assert [e["pointer"] for e in response.json["errors"]] == [pointer]


def test_a_restricted_patients_contact_answers_the_same_404_as_a_missing_one(world, testapp, connected):
    patient_id = add_patient(world, connected.clinic_id)
    url = f"/v1/clinics/{connected.clinic_id}/care-providers"
    body = dict(CareProviderCreate.EXAMPLE, patient_id=str(patient_id))
    created = testapp.post_json(url, body, headers=idem(connected.key), status=201).json["data"]
    restrict(world, connected.clinic_id, patient_id)
    missing = testapp.get(f"{url}/{uuid.uuid4()}", headers=connected.headers, status=404).json
    hidden = testapp.get(f"{url}/{created['id']}", headers=connected.headers, status=404).json
    assert {k: v for k, v in hidden.items() if k != "request_id"} == \
        {k: v for k, v in missing.items() if k != "request_id"}
    testapp.patch_json(f"{url}/{created['id']}", {"name": "X"}, headers=connected.headers, status=404)
    testapp.delete(f"{url}/{created['id']}", headers=connected.headers, status=404)
    assert testapp.get(url, headers=connected.headers).json["data"] == []
    response = testapp.post_json(url, body, headers=idem(connected.key), status=400)
    assert response.json["errors"][0]["pointer"] == "/patient_id"


def test_care_provider_scopes(world, testapp):
    narrow = world.connected(scopes={"care_providers:read"})
    response = testapp.post_json(f"/v1/clinics/{narrow.clinic_id}/care-providers", CareProviderCreate.EXAMPLE,
                                 headers=idem(narrow.key), status=403)
    assert response.json["code"] == "scope_missing"


def test_care_provider_add_command_records_a_clinic_contact(world, testapp, connected):
    patient_id = add_patient(world, connected.clinic_id)
    status, result, _ = admin("care-provider", "add", "--clinic", connected.clinic_id, "--patient", patient_id,
                              "--type", "pcp", "--name", "Dr. Hale", "--primary", "--npi", "1234567893",
                              "--notes", "Only answers on Tuesdays")
    assert status == 0
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/care-providers/{result['care_provider_id']}",
                           headers=connected.headers)
    contact = response.json["data"]
    assert (contact["source"], contact["editable"], contact["is_primary"]) == ("clinic", False, True)
    assert "Tuesdays" not in response.text


@pytest.mark.parametrize("extra", [("--npi", "1234567890"), ("--type", "friend"), ("--name", ""),
                                   ("--phone", "x" * 41)])
def test_care_provider_add_refuses_bad_input_and_changes_nothing(world, extra):
    clinic_id = world.clinic()
    patient_id = add_patient(world, clinic_id)
    argv = {"--type": "pcp", "--name": "Dr. Hale"}
    for flag, value in zip(extra[::2], extra[1::2]):
        argv[flag] = value
    status, result, _ = admin("care-provider", "add", "--clinic", clinic_id, "--patient", patient_id,
                              *[part for pair in argv.items() for part in pair])
    assert status == 2 and result is None
    with clinic_db(world, clinic_id) as db:
        assert db.scalar(select(func.count()).select_from(CareProvider)) == 0


def test_care_provider_add_refuses_an_unknown_patient(world):
    status, _, err = admin("care-provider", "add", "--clinic", world.clinic(), "--patient", uuid.uuid4(),
                           "--type", "pcp", "--name", "Dr. Hale")
    assert status == 2 and "no patient" in err
