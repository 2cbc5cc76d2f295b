import uuid

import pytest

from clinicrecords.clinical import schemas
from clinicrecords.sandbox.interfaces import sandbox_id
from tests.review.conftest import ok, refused


def test_a_restricted_patient_is_invisible_with_all_their_records(clinic, testapp):
    sent = clinic.allergy("Peanut").json["data"]
    clinic.accept(sent["submission_id"])
    pending = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": "I10"}).json["data"]
    allergy_url = clinic.url(f"allergies/{sent['target_id']}")
    assert ok("patient", "restrict", "--clinic", clinic.id, clinic.patient_id, "--on") == {
        "patient_id": clinic.patient_id, "restricted": True}

    testapp.get(clinic.url(f"patients/{clinic.patient_id}"), headers=clinic.headers, status=404)
    testapp.get(allergy_url, headers=clinic.headers, status=404)
    assert testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"] == []
    testapp.get(clinic.url(f"submissions/{pending['submission_id']}"), headers=clinic.headers, status=404)
    assert testapp.get(clinic.url("submissions"), headers=clinic.headers).json["data"] == []
    clinic.send(f"allergies/{sent['target_id']}", {"note": "x"}, method="patch", status=404)
    response = clinic.allergy("Latex", status=400)
    assert response.json["errors"] == [{"pointer": "/patient_id", "message": "No such patient in this clinic."}]
    # Staff still decide on what was already queued.
    assert clinic.accept(pending["submission_id"])["review_status"] == "confirmed"

    ok("patient", "restrict", "--clinic", clinic.id, clinic.patient_id, "--off")
    assert testapp.get(allergy_url, headers=clinic.headers).json["data"]["id"] == sent["target_id"]


def test_patient_restrict_refuses_bad_input(clinic):
    refused("patient", "restrict", "--clinic", clinic.id, str(uuid.uuid4()), "--on")
    refused("patient", "restrict", "--clinic", clinic.id, clinic.patient_id)
    refused("patient", "restrict", "--clinic", str(uuid.uuid4()), clinic.patient_id, "--on")


def test_submission_list_for_staff(clinic):
    first = clinic.allergy("Peanut").json["data"]
    second = clinic.allergy("Latex").json["data"]
    clinic.decline(second["submission_id"])
    listed = ok("submission", "list", "--clinic", clinic.id)["data"]
    assert [s["submission_id"] for s in listed] == [first["submission_id"], second["submission_id"]]
    assert listed[0]["workspace_id"] == str(clinic.connected.workspace_id)
    pending = ok("submission", "list", "--clinic", clinic.id, "--status", "pending")["data"]
    assert [s["submission_id"] for s in pending] == [first["submission_id"]]
    refused("submission", "list", "--clinic", clinic.id, "--status", "maybe")
    refused("submission", "list", "--clinic", str(uuid.uuid4()))
    refused("submission", "accept", "--clinic", clinic.id, str(uuid.uuid4()))
    refused("submission", "decline", "--clinic", clinic.id, first["submission_id"], "--reason", "x" * 2001)
    refused("item", "review", "--clinic", clinic.id, "--kind", "allergy", str(uuid.uuid4()))


def test_item_review_refuses_items_a_clinician_accepted(clinic):
    sent = clinic.allergy("Peanut").json["data"]
    clinic.accept(sent["submission_id"])
    assert "not accepted automatically" in refused("item", "review", "--clinic", clinic.id, "--kind", "allergy",
                                                   sent["target_id"])
    refused("item", "review", "--clinic", clinic.id, "--kind", "vaccine", sent["target_id"])


@pytest.fixture
def sandbox(world):
    workspace_id, sandbox_clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    return workspace_id, sandbox_clinic_id, {"Authorization": f"Bearer {key}"}


def test_the_sandbox_is_seeded_with_fixed_ids(sandbox, testapp):
    _, clinic_id, headers = sandbox
    base = f"/v1/clinics/{clinic_id}"
    allergies = testapp.get(f"{base}/allergies", headers=headers).json["data"]
    assert {a["entry"] for a in allergies} == {"recorded", "legacy_text", "no_known_allergies"}
    assert str(sandbox_id("allergy:1")) in {a.get("id") for a in allergies}
    testapp.get(f"{base}/conditions/{sandbox_id('condition:1')}", headers=headers)
    assert testapp.get(f"{base}/conditions/{sandbox_id('condition:2')}", headers=headers).json["data"][
        "verification_status"] == "unconfirmed"
    testapp.get(f"{base}/medication-statements/{sandbox_id('medication_statement:1')}", headers=headers)
    assert testapp.get(f"{base}/referrals/{sandbox_id('referral:2')}", headers=headers).json["data"][
        "status"] == "received"
    seeded = testapp.get(f"{base}/submissions/{sandbox_id('submission:1')}", headers=headers).json["data"]
    assert seeded["review_status"] == "pending"


@pytest.mark.parametrize("path, schema, method", [
    ("allergies", schemas.AllergyCreate, "post"),
    (f"allergies/{schemas.SANDBOX_ALLERGY_ID}", schemas.AllergyChange, "patch"),
    ("conditions", schemas.ConditionCreate, "post"),
    (f"conditions/{schemas.SANDBOX_CONDITION_ID}", schemas.ConditionChange, "patch"),
    ("medication-statements", schemas.MedicationStatementCreate, "post"),
    (f"medication-statements/{schemas.SANDBOX_MEDICATION_STATEMENT_ID}", schemas.MedicationStatementChange, "patch"),
    ("referrals", schemas.ReferralCreate, "post"),
    (f"referrals/{schemas.SANDBOX_REFERRAL_ID}", schemas.ReferralChange, "patch"),
])
def test_every_example_works_as_is_in_any_sandbox(sandbox, testapp, path, schema, method):
    _, clinic_id, headers = sandbox
    send = getattr(testapp, f"{method}_json")
    response = send(f"/v1/clinics/{clinic_id}/{path}", schema.EXAMPLE,
                    headers={**headers, "Idempotency-Key": str(uuid.uuid4())}, status=202)
    assert response.json["data"]["review_status"] == "pending"


def test_fhir_reads_validate_against_the_r4_models(sandbox, testapp):
    from fhir.resources.R4B.bundle import Bundle
    from fhir.resources.R4B.patient import Patient

    _, clinic_id, headers = sandbox
    fhir = {**headers, "Accept": "application/fhir+json"}
    base = f"/v1/clinics/{clinic_id}"
    Patient.model_validate(testapp.get(f"{base}/patients/{sandbox_id('patient:1')}", headers=fhir).json)
    for path in ("patients", "allergies", "conditions", "medication-statements", "referrals"):
        bundle = testapp.get(f"{base}/{path}", headers=fhir).json
        Bundle.model_validate(bundle)
        assert bundle["entry"]
