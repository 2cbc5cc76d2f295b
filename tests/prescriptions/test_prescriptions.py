import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from clinicrecords.prescriptions.models import Prescription
from clinicrecords.prescriptions.schemas import SANDBOX_PRESCRIPTION_IDS
from tests.common.clinical import add_patient, admin, clinic_db, headers, restrict, sandbox

FIELDS = {"id", "patient_id", "drug", "dose", "frequency", "status", "source", "written_on", "start_date",
          "end_date", "created_at", "updated_at"}


def test_sandbox_prescriptions_carry_only_drug_dose_frequency_status_dates(world, testapp):
    clinic_id, key = sandbox(world)
    listed = testapp.get(f"/v1/clinics/{clinic_id}/prescriptions", headers=headers(key)).json["data"]
    assert sorted(p["id"] for p in listed) == sorted(map(str, SANDBOX_PRESCRIPTION_IDS))
    assert all(set(p) == FIELDS for p in listed)
    assert {p["source"] for p in listed} == {"eprescribe", "clinic"}
    mine = testapp.get(f"/v1/clinics/{clinic_id}/prescriptions?patient_id={SANDBOX_PATIENT_IDS[1]}&status=active",
                       headers=headers(key)).json["data"]
    assert len(mine) == 2


def test_fhir_medication_request(world, testapp):
    clinic_id, key = sandbox(world)
    resource = testapp.get(f"/v1/clinics/{clinic_id}/prescriptions/{SANDBOX_PRESCRIPTION_IDS[0]}",
                           headers=headers(key, Accept="application/fhir+json")).json
    assert resource["resourceType"] == "MedicationRequest"
    assert resource["status"] == "completed" and resource["intent"] == "order"
    assert resource["medicationCodeableConcept"]["text"].startswith("Amoxicillin")
    assert resource["extension"] == [{"url": "urn:clinicrecords:fhir:prescription-source", "valueString": "eprescribe"}]
    assert resource["dispenseRequest"]["validityPeriod"] == {"start": "2025-02-03", "end": "2025-02-10"}


def test_prescriptions_are_read_only(world, testapp):
    clinic_id, key = sandbox(world)
    url = f"/v1/clinics/{clinic_id}/prescriptions"
    assert testapp.post_json(url, {}, headers=headers(key), status=405).json["code"] == "method_not_allowed"
    testapp.patch_json(f"{url}/{SANDBOX_PRESCRIPTION_IDS[0]}", {}, headers=headers(key), status=405)
    narrow = world.connected(scopes={"medications:write"})
    assert testapp.get(f"/v1/clinics/{narrow.clinic_id}/prescriptions", headers=narrow.headers,
                       status=403).json["code"] == "scope_missing"


def test_prescription_add_command_and_a_restricted_patients_prescription_is_hidden(world, testapp, connected):
    patient_id = add_patient(world, connected.clinic_id)
    status, result, _ = admin("prescription", "add", "--clinic", connected.clinic_id, "--patient", patient_id,
                              "--drug", "Atorvastatin 20 mg tablet", "--dose", "1 tablet", "--frequency", "at night",
                              "--source", "eprescribe", "--start", "2026-01-05")
    assert status == 0
    url = f"/v1/clinics/{connected.clinic_id}/prescriptions"
    item = testapp.get(f"{url}/{result['prescription_id']}", headers=connected.headers).json["data"]
    assert (item["source"], item["status"], item["start_date"]) == ("eprescribe", "active", "2026-01-05")
    restrict(world, connected.clinic_id, patient_id)
    missing = testapp.get(f"{url}/{uuid.uuid4()}", headers=connected.headers, status=404).json
    hidden = testapp.get(f"{url}/{result['prescription_id']}", headers=connected.headers, status=404).json
    assert (hidden["code"], hidden["detail"]) == (missing["code"], missing["detail"])
    assert testapp.get(url, headers=connected.headers).json["data"] == []


@pytest.mark.parametrize("extra", [
    ("--start", "2026-02-01", "--end", "2026-01-01"),
    ("--status", "paused"),
    ("--start", "soon"),
    ("--drug", ""),
])
def test_prescription_add_refuses_bad_input_and_changes_nothing(world, extra):
    clinic_id = world.clinic()
    patient_id = add_patient(world, clinic_id)
    argv = {"--drug": "X", "--dose": "1", "--frequency": "daily"}
    for flag, value in zip(extra[::2], extra[1::2]):
        argv[flag] = value
    status, result, _ = admin("prescription", "add", "--clinic", clinic_id, "--patient", patient_id,
                              *[part for pair in argv.items() for part in pair])
    assert status == 2 and result is None
    with clinic_db(world, clinic_id) as db:
        assert db.scalar(select(func.count()).select_from(Prescription)) == 0


def test_prescription_add_refuses_an_unknown_patient(world):
    clinic_id = world.clinic()
    status, _, err = admin("prescription", "add", "--clinic", clinic_id, "--patient", uuid.uuid4(), "--drug", "X",
                           "--dose", "1", "--frequency", "daily")
    assert status == 2 and "no patient" in err
