"""FHIR reads under the clinic's FHIR base: GET {base}/{type}/{id} for every exported type, the same JSON as the
export's lines, under the single reads' own rules (permission per type, restricted patients and sensitive
encounters 404, every read audited naming its patients, no existence leak), with ETag and Last-Modified."""

import uuid

import pytest
from sqlalchemy import select

from clinicrecords.audit.models import AuditEntry
from clinicrecords.encounters.models import Encounter
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from tests.common.clinical import add_patient, clinic_db, headers, restrict, sandbox
from tests.common.fhir import assert_valid_fhir
from tests.exports.flow import FHIR, export, outcome_code

ADA = SANDBOX_PATIENT_IDS[0]


def _read(testapp, clinic_id, key, path, status=200, **extra):
    return testapp.get(f"/v1/clinics/{clinic_id}/fhir/{path}", headers=headers(key, **extra), status=status)


def test_every_exported_resource_reads_as_its_export_line(testapp, world):
    clinic_id, key = sandbox(world)
    found, _ = export(testapp, clinic_id, key)
    assert set(found) == {"Patient", "AllergyIntolerance", "Condition", "MedicationStatement", "ServiceRequest",
                          "MedicationRequest", "Encounter", "Coverage", "Practitioner", "Organization"}
    for fhir_type, resources in found.items():
        for resource in resources[:3]:
            read = _read(testapp, clinic_id, key, f"{fhir_type}/{resource['id']}")
            assert read.headers["Content-Type"] == "application/fhir+json; fhirVersion=4.0"
            assert read.json == resource, fhir_type
            assert_valid_fhir(read.json, fhir_type)
            assert read.headers["ETag"]


def test_a_read_answers_304_to_its_etag_and_names_its_last_change(testapp, world):
    clinic_id, key = sandbox(world)
    read = _read(testapp, clinic_id, key, f"Patient/{ADA}")
    assert read.headers["Last-Modified"]
    _read(testapp, clinic_id, key, f"Patient/{ADA}", status=304, **{"If-None-Match": read.headers["ETag"]})


def test_a_permission_opens_its_type_only_and_practitioner_by_source(testapp, world):
    clinic_id = world.clinic(seed=True)
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, clinic_id, {"patients:read", "care_providers:read"})
    connected = type("Connected", (), {"clinic_id": clinic_id, "key": world.key(workspace_id=workspace_id,
                                                                                 mode="live")})
    found, _ = export(testapp, clinic_id, world.key(clinic_id=clinic_id))
    patient = found["Patient"][0]["id"]
    condition = found["Condition"][0]["id"]
    _read(testapp, connected.clinic_id, connected.key, f"Patient/{patient}")
    refused = _read(testapp, connected.clinic_id, connected.key, f"Condition/{condition}", status=403)
    assert outcome_code(refused) == "scope_missing" and "conditions:read" in refused.text
    # The same 403 for an id that exists nowhere: the refusal comes before any lookup.
    nowhere = _read(testapp, connected.clinic_id, connected.key, f"Condition/{uuid.uuid4()}", status=403)
    assert outcome_code(nowhere) == "scope_missing"
    clinicians = [p for p in found["Practitioner"] if not any("valueReference" in e for e in p["extension"])]
    care_providers = [p for p in found["Practitioner"] if p not in clinicians]
    _read(testapp, connected.clinic_id, connected.key, f"Practitioner/{care_providers[0]['id']}")
    # A clinician is providers:read's: for this key it is not found.
    assert outcome_code(_read(testapp, connected.clinic_id, connected.key, f"Practitioner/{clinicians[0]['id']}",
                              status=404)) == "not_found"


def test_restricted_patients_and_sensitive_encounters_are_not_found(testapp, world):
    clinic_id, key = sandbox(world)
    found, _ = export(testapp, clinic_id, key)
    about_ada = [resource for resource in found["Condition"] if resource["subject"]["reference"] == f"Patient/{ADA}"]
    encounter = found["Encounter"][-1]["id"]
    with clinic_db(world, clinic_id) as db:
        db.get(Encounter, uuid.UUID(encounter)).sensitive = True
    restrict(world, clinic_id, ADA)
    missing = _read(testapp, clinic_id, key, f"Patient/{uuid.uuid4()}", status=404)
    for path in (f"Patient/{ADA}", f"Condition/{about_ada[0]['id']}", f"Encounter/{encounter}"):
        hidden = _read(testapp, clinic_id, key, path, status=404)
        assert hidden.json["issue"][0]["details"] == missing.json["issue"][0]["details"]


def test_another_clinics_record_is_not_found_under_this_base_nor_that_one(testapp, world):
    connected = world.connected()
    elsewhere = world.clinic()
    theirs = add_patient(world, elsewhere)
    ours = add_patient(world, connected.clinic_id)
    _read(testapp, connected.clinic_id, connected.key, f"Patient/{ours}")
    missing = _read(testapp, connected.clinic_id, connected.key, f"Patient/{uuid.uuid4()}", status=404)
    under_ours = _read(testapp, connected.clinic_id, connected.key, f"Patient/{theirs}", status=404)
    under_theirs = _read(testapp, elsewhere, connected.key, f"Patient/{theirs}", status=404)
    assert (missing.json["issue"][0]["details"] == under_ours.json["issue"][0]["details"]
            == under_theirs.json["issue"][0]["details"])


def test_every_read_is_audited_naming_its_patient(testapp, world):
    clinic_id, key = sandbox(world)
    found, _ = export(testapp, clinic_id, key, "?_type=Condition")
    condition = found["Condition"][0]
    read = _read(testapp, clinic_id, key, f"Condition/{condition['id']}")
    with clinic_db(world, clinic_id) as db:
        entries = db.scalars(select(AuditEntry).where(AuditEntry.request_id == read.headers["X-Request-Id"])).all()
    named = {str(value) for entry in entries for value in entry.record_ids}
    assert {condition["id"], condition["subject"]["reference"].split("/")[1]} <= named


@pytest.mark.parametrize("asked, status", [({"Accept": "application/fhir+xml"}, 406), ({"Accept": "*/*"}, 200),
                                            ({"Accept": "application/json"}, 200)])
def test_accept_is_negotiated(testapp, world, asked, status):
    clinic_id, key = sandbox(world)
    response = _read(testapp, clinic_id, key, f"Patient/{ADA}", status=status, **asked)
    if status == 406:
        assert outcome_code(response) == "not_acceptable"


@pytest.mark.parametrize("query, status", [("_format=json", 200), ("_format=application/fhir%2Bjson", 200),
                                           ("_format=xml", 406), ("_elements=id", 400)])
def test_format_and_unknown_parameters(testapp, world, query, status):
    clinic_id, key = sandbox(world)
    response = _read(testapp, clinic_id, key, f"Patient/{ADA}?{query}", status=status)
    assert response.content_type == FHIR
