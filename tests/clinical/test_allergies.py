"""Allergy sends and the allergy change request: every enumeration, bound and cross-field rule."""

import pytest
from fhir.resources.R4B.allergyintolerance import AllergyIntolerance
from fhir.resources.R4B.bundle import Bundle

from clinicrecords.clinics.services import open_clinic
from clinicrecords.clinical.models import Allergy
from tests.review.conftest import refused


def _pointers(response):
    assert response.json["code"] == "invalid_request"
    return {error["pointer"] for error in response.json["errors"]}


def _confirmed_allergy(clinic, substance="Peanut"):
    sent = clinic.allergy(substance).json["data"]
    clinic.accept(sent["submission_id"])
    return sent["target_id"]


@pytest.mark.parametrize("fields, pointer", [
    ({"category": ["food", "medication", "environment", "biologic", "food"]}, "/category"),
    ({"category": ["food", "food"]}, "/category"),
    ({"category": ["plants"]}, "/category/0"),
    ({"criticality": "severe"}, "/criticality"),
    ({"type": "sensitivity"}, "/type"),
    ({"clinical_status": "entered_in_error"}, "/clinical_status"),
    ({"clinical_status": "gone"}, "/clinical_status"),
    ({"note": "x" * 2001}, "/note"),
    ({"reactions": [{"manifestation": ["hives"]}] * 21}, "/reactions"),
    ({"reactions": [{"manifestation": ["hives"], "description": "x" * 201}]}, "/reactions/0/description"),
    ({"reactions": [{"manifestation": []}]}, "/reactions/0/manifestation"),
    ({"reactions": [{"description": "rash"}]}, "/reactions/0/manifestation"),
    ({"client_reference": "x" * 201}, "/client_reference"),
    ({"origin_assistant_name": "x" * 201}, "/origin_assistant_name"),
    ({"onset_date": "2021-02-30"}, "/onset_date"),
    ({"substance": {"text": "x" * 201}}, "/substance/text"),
    ({"substance": {}}, "/substance"),
    ({"substance": {"rxnorm": "abc"}}, "/substance/rxnorm"),
    ({"substance": {"text": "NKDA"}}, "/substance/text"),
    ({"substance": {"text": "None"}}, "/substance/text"),
    ({"substance": {"text": "No known allergies"}}, "/substance/text"),
    ({"substance": {"rxnorm": "999999999"}}, "/substance/rxnorm"),
    ({"patient_id": "00000000-0000-4000-8000-000000000000"}, "/patient_id"),
    ({"no_known_allergies": True}, "/substance"),
    ({"no_known_allergies": False, "substance": {"text": "Egg"}}, "/no_known_allergies"),
    ({"substance": None}, "/substance"),
])
def test_create_refusals_point_at_the_field(clinic, fields, pointer):
    body = {"patient_id": clinic.patient_id, "substance": {"text": "Peanut"}, **fields}
    if body["substance"] is None:
        del body["substance"]
    assert pointer in _pointers(clinic.send("allergies", body, status=400))


def test_a_known_rxnorm_code_names_the_substance(clinic):
    sent = clinic.send("allergies", {"patient_id": clinic.patient_id, "substance": {"rxnorm": "723"},
                                     "category": ["food", "medication", "environment", "biologic"],
                                     "criticality": "unable_to_assess", "type": "intolerance"}).json["data"]
    assert sent["payload"]["substance"] == {"rxnorm": "723", "text": "amoxicillin"}


def test_fhir_bodies_are_refused(clinic, testapp):
    body = {"resourceType": "AllergyIntolerance", "patient": {"reference": f"Patient/{clinic.patient_id}"}}
    assert _pointers(clinic.send("allergies", body, status=400)) == {"/resourceType"}
    allergy_id = _confirmed_allergy(clinic)
    testapp.patch(clinic.url(f"allergies/{allergy_id}"), '{"resourceType": "AllergyIntolerance"}',
                  headers={**clinic.headers, "Content-Type": "application/fhir+json"}, status=415)
    assert _pointers(clinic.send(f"allergies/{allergy_id}", {"resourceType": "AllergyIntolerance"},
                                 method="patch", status=400)) == {"/resourceType"}


@pytest.mark.parametrize("change, pointer", [
    ({"substance": {"text": "Tree nut"}}, "/substance"),
    ({"patient_id": "00000000-0000-4000-8000-000000000000"}, "/patient_id"),
    ({"clinical_status": "entered_in_error", "note": "typo"}, "/clinical_status"),
    ({"clinical_status": "entered_in_error", "category": ["food"]}, "/clinical_status"),
    ({}, ""),
    ({"client_reference": "only-a-reference"}, ""),
    ({"category": ["food", "medication", "environment", "biologic", "food"]}, "/category"),
    ({"criticality": "low-ish"}, "/criticality"),
    ({"type": "both"}, "/type"),
    ({"clinical_status": "cured"}, "/clinical_status"),
    ({"note": "x" * 2001}, "/note"),
    ({"reactions": [{"manifestation": ["x"]}] * 21}, "/reactions"),
    ({"reactions": [{"manifestation": ["x"], "description": "y" * 201}]}, "/reactions/0/description"),
    ({"client_reference": "x" * 201, "note": "n"}, "/client_reference"),
    ({"origin_assistant_name": "x" * 201, "note": "n"}, "/origin_assistant_name"),
    ({"no_known_allergies": True}, "/no_known_allergies"),
])
def test_change_request_refusals(clinic, change, pointer):
    allergy_id = _confirmed_allergy(clinic)
    response = clinic.send(f"allergies/{allergy_id}", change, method="patch", status=400)
    assert pointer in _pointers(response)


def test_a_change_waits_for_a_clinician_then_applies(clinic, testapp):
    allergy_id = _confirmed_allergy(clinic)
    url = clinic.url(f"allergies/{allergy_id}")
    before = testapp.get(url, headers=clinic.headers).json["data"]
    response = testapp.patch_json(url, {"clinical_status": "resolved", "criticality": "low", "note": "Outgrown"},
                                  headers=clinic.headers, status=202)  # Idempotency-Key is optional here
    change = response.json["data"]
    assert change["action"] == "update" and change["target_id"] == allergy_id
    assert response.headers["Location"].endswith(f"/submissions/{change['submission_id']}")
    assert testapp.get(url, headers=clinic.headers).json["data"] == before
    clinic.accept(change["submission_id"])
    after = testapp.get(url, headers=clinic.headers).json["data"]
    assert (after["clinical_status"], after["criticality"], after["note"]) == ("resolved", "low", "Outgrown")
    assert after["substance"] == before["substance"]


def test_a_retraction_alone_marks_the_allergy_entered_in_error(clinic, testapp):
    allergy_id = _confirmed_allergy(clinic)
    retraction = clinic.send(f"allergies/{allergy_id}", {"clinical_status": "entered_in_error"},
                             method="patch").json["data"]
    assert retraction["action"] == "retract"
    clinic.accept(retraction["submission_id"])
    url = clinic.url(f"allergies/{allergy_id}")
    allergy = testapp.get(url, headers=clinic.headers).json["data"]
    assert (allergy["clinical_status"], allergy["verification_status"]) == ("entered_in_error", "entered_in_error")
    fhir = testapp.get(url, headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    AllergyIntolerance.model_validate(fhir)
    assert "clinicalStatus" not in fhir


def test_a_duplicate_allergy_is_never_added_to_the_chart(clinic, testapp):
    first = _confirmed_allergy(clinic, "Peanut")
    again = clinic.allergy("peanut").json["data"]
    assert again["review_status"] == "pending"
    decided = clinic.accept(again["submission_id"])
    assert decided["review_status"] == "confirmed" and decided["result_record_id"] == first
    assert [a["id"] for a in testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"]] == [first]


def test_no_known_allergies_is_its_own_statement(clinic, testapp):
    statement = clinic.send("allergies", {"patient_id": clinic.patient_id, "no_known_allergies": True}).json["data"]
    assert statement["action"] == "no_known_allergies" and statement["resource_type"] == "allergy"
    clinic.accept(statement["submission_id"])
    [entry] = testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"]
    assert entry["entry"] == "no_known_allergies" and entry["substance"] is None
    fhir = testapp.get(clinic.url(f"allergies/{entry['id']}"),
                       headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    AllergyIntolerance.model_validate(fhir)
    assert fhir["code"]["coding"][0]["code"] == "716186003"
    # A confirmed allergy ends the statement.
    _confirmed_allergy(clinic, "Peanut")
    listed = {a["entry"]: a for a in testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"]}
    assert listed["no_known_allergies"]["clinical_status"] == "inactive"


def test_no_known_allergies_cannot_be_confirmed_while_an_allergy_is_active(clinic, testapp):
    _confirmed_allergy(clinic, "Peanut")
    statement = clinic.send("allergies", {"patient_id": clinic.patient_id, "no_known_allergies": True}).json["data"]
    assert "active allergy" in refused("submission", "accept", "--clinic", clinic.id, statement["submission_id"])
    assert clinic.decline(statement["submission_id"])["review_status"] == "rejected"


def test_legacy_text_entries_are_listed_without_an_id_and_block_no_known_allergies(clinic, testapp, world):
    assert testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"] == []  # not "no known allergies"
    with world.request() as request:
        open_clinic(request.db, clinic.id)
        legacy = Allergy(patient_id=clinic.patient_id, entry="legacy_text", substance_text="Sulfa",
                         category=[], reactions=[])
        request.db.add(legacy)
        request.db.flush()
        legacy_id = legacy.id
    [entry] = testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"]
    assert entry["entry"] == "legacy_text" and "id" not in entry and entry["substance"]["text"] == "Sulfa"
    testapp.get(clinic.url(f"allergies/{legacy_id}"), headers=clinic.headers, status=404)
    clinic.send(f"allergies/{legacy_id}", {"note": "x"}, method="patch", status=404)
    bundle = testapp.get(clinic.url("allergies"), headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    Bundle.model_validate(bundle)
    assert "id" not in bundle["entry"][0]["resource"]
    statement = clinic.send("allergies", {"patient_id": clinic.patient_id, "no_known_allergies": True}).json["data"]
    refused("submission", "accept", "--clinic", clinic.id, statement["submission_id"])


def test_allergy_routes_need_their_permissions(world, testapp):
    narrow = world.connected(scopes={"conditions:read"})
    url = f"/v1/clinics/{narrow.clinic_id}/allergies"
    assert testapp.get(url, headers=narrow.headers, status=403).json["code"] == "scope_missing"
    testapp.post_json(url, {}, headers=narrow.headers, status=403)
