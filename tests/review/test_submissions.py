"""Submission states: pending → confirmed (clinician or automatic) | rejected; decided ones never change."""

import uuid

from sqlalchemy import select

from clinicrecords.clinics.services import open_clinic
from clinicrecords.events.models import Event
from tests.common.clinical import headers, idem
from tests.review.conftest import ok, refused


def test_a_send_is_202_with_location_and_leaves_the_chart_unchanged(clinic, testapp):
    response = clinic.allergy("Peanut", category=["food"], client_reference="ref-1",
                              origin_assistant_name="Intake Assistant")
    submission = response.json["data"]
    assert response.headers["Location"].endswith(f"/v1/clinics/{clinic.id}/submissions/{submission['submission_id']}")
    assert submission["review_status"] == "pending" and submission["accepted_automatically"] is False
    assert submission["resource_type"] == "allergy" and submission["action"] == "create"
    assert submission["source"] == "api" and submission["decided_at"] is None
    assert submission["result_record_id"] is None and submission["client_reference"] == "ref-1"
    assert submission["origin_assistant_name"] == "Intake Assistant"
    assert submission["payload"]["substance"] == {"text": "Peanut"}
    assert set(submission) == {"submission_id", "patient_id", "resource_type", "action", "review_status",
                               "target_id", "accepted_automatically", "source", "submitted_at", "decided_at",
                               "decision_reason", "result_record_id", "client_reference",
                               "origin_assistant_name", "payload"}
    assert testapp.get(response.headers["Location"], headers=clinic.headers).json["data"] == submission
    assert testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"] == []
    testapp.get(clinic.url(f"allergies/{submission['target_id']}"), headers=clinic.headers, status=404)


def test_clinician_accepts_then_the_decision_is_final(clinic, testapp):
    sent = clinic.allergy("Peanut").json["data"]
    accepted = clinic.accept(sent["submission_id"], "--staff-id", str(uuid.uuid4()))
    assert accepted["review_status"] == "confirmed" and accepted["decided_at"]
    assert accepted["result_record_id"] == sent["target_id"] and accepted["accepted_automatically"] is False
    allergy = testapp.get(clinic.url(f"allergies/{sent['target_id']}"), headers=clinic.headers).json["data"]
    assert allergy["accepted_by"] == "clinic" and allergy["verification_status"] == "confirmed"
    assert allergy["reviewed_at"] is None and allergy["reviewed_by_staff_id"] is None
    assert "submission_not_pending" in refused("submission", "accept", "--clinic", clinic.id, sent["submission_id"])
    refused("submission", "decline", "--clinic", clinic.id, sent["submission_id"])
    response = testapp.delete(clinic.url(f"submissions/{sent['submission_id']}"), headers=clinic.headers, status=409)
    assert response.json["code"] == "submission_not_pending"


def test_clinician_declines_with_a_reason(clinic, testapp):
    sent = clinic.allergy("Peanut").json["data"]
    declined = clinic.decline(sent["submission_id"], "--reason", "Not confirmed by the patient")
    assert declined["review_status"] == "rejected" and declined["decision_reason"] == "Not confirmed by the patient"
    assert declined["result_record_id"] is None
    assert testapp.get(clinic.url("allergies"), headers=clinic.headers).json["data"] == []
    refused("submission", "accept", "--clinic", clinic.id, sent["submission_id"])
    refused("submission", "decline", "--clinic", clinic.id, sent["submission_id"])


def test_the_sender_withdraws_a_pending_submission_once(clinic, testapp):
    sent = clinic.allergy("Peanut").json["data"]
    url = clinic.url(f"submissions/{sent['submission_id']}")
    withdrawn = testapp.delete(url, headers=clinic.headers).json["data"]
    assert withdrawn["review_status"] == "rejected" and withdrawn["decision_reason"] == "withdrawn"
    assert testapp.delete(url, headers=clinic.headers, status=409).json["code"] == "submission_not_pending"
    refused("submission", "accept", "--clinic", clinic.id, sent["submission_id"])



def test_a_withdraw_retried_with_its_idempotency_key_replays_the_first_answer(clinic, testapp):
    """A retry after a lost answer gets the withdrawal again, never submission_not_pending (which reads like a
    clinician's decision)."""
    sent = clinic.allergy().json["data"]
    url = clinic.url(f"submissions/{sent['submission_id']}")
    same = {**clinic.headers, "Idempotency-Key": str(uuid.uuid4())}
    first = testapp.delete(url, headers=same)
    again = testapp.delete(url, headers=same)
    assert again.status_int == 200 and again.body == first.body and again.headers["Idempotent-Replayed"] == "true"
    assert first.json["data"]["review_status"] == "rejected"
    other = testapp.delete(url, headers={**clinic.headers, "Idempotency-Key": str(uuid.uuid4())}, status=409)
    assert other.json["code"] == "submission_not_pending"


def test_client_reference_same_content_returns_the_existing_submission(clinic):
    first = clinic.allergy("Peanut", client_reference="intake-1")
    again = clinic.allergy("Peanut", client_reference="intake-1")
    assert again.json["data"]["submission_id"] == first.json["data"]["submission_id"]
    assert again.headers["Location"] == first.headers["Location"]


def test_client_reference_different_content_is_a_conflict(clinic):
    clinic.allergy("Peanut", client_reference="intake-2")
    response = clinic.allergy("Shellfish", client_reference="intake-2", status=409)
    assert response.json["code"] == "client_reference_conflict"
    assert response.json["errors"] == [{"pointer": "/client_reference",
                                        "message": "Already used for different content."}]
    body = {"patient_id": clinic.patient_id, "icd10_code": "I10", "client_reference": "intake-2"}
    assert clinic.send("conditions", body, status=409).json["code"] == "client_reference_conflict"


def test_own_submissions_listed_and_filtered_others_invisible(clinic, testapp, world):
    pending = clinic.allergy("Peanut").json["data"]
    decided = clinic.allergy("Latex").json["data"]
    clinic.decline(decided["submission_id"])
    listed = testapp.get(clinic.url("submissions"), headers=clinic.headers).json
    assert [s["submission_id"] for s in listed["data"]] == [pending["submission_id"], decided["submission_id"]]
    only = testapp.get(clinic.url("submissions?review_status=pending"), headers=clinic.headers).json["data"]
    assert [s["submission_id"] for s in only] == [pending["submission_id"]]
    bad = testapp.get(clinic.url("submissions?review_status=maybe"), headers=clinic.headers, status=400).json
    assert bad["errors"][0]["pointer"] == "/review_status"

    other_workspace, _ = world.workspace(name="Other")
    world.grant(other_workspace, clinic.id)
    other = {"Authorization": f"Bearer {world.key(workspace_id=other_workspace, mode='live')}"}
    assert testapp.get(clinic.url("submissions"), headers=other).json["data"] == []
    testapp.get(clinic.url(f"submissions/{pending['submission_id']}"), headers=other, status=404)
    testapp.delete(clinic.url(f"submissions/{pending['submission_id']}"), headers=other, status=404)


def test_submissions_need_the_permission_of_their_kind(clinic, testapp, world):
    sent = clinic.allergy("Peanut").json["data"]
    url = clinic.url(f"submissions/{sent['submission_id']}")
    world.grant(clinic.connected.workspace_id, clinic.id, {"conditions:read", "allergies:read"})
    testapp.get(url, headers=clinic.headers)
    assert testapp.delete(url, headers=clinic.headers, status=403).json["code"] == "scope_missing"
    world.grant(clinic.connected.workspace_id, clinic.id, {"conditions:read"})
    assert testapp.get(url, headers=clinic.headers, status=403).json["code"] == "scope_missing"
    assert testapp.get(clinic.url("submissions"), headers=clinic.headers).json["data"] == []
    world.grant(clinic.connected.workspace_id, clinic.id, {"patients:read"})
    assert testapp.get(clinic.url("submissions"), headers=clinic.headers, status=403).json["code"] == "scope_missing"


def test_a_clinic_key_sees_its_own_submissions(clinic, testapp, world):
    own_key = world.key(clinic_id=clinic.id)
    own = headers(own_key)
    sent = testapp.post_json(clinic.url("allergies"), {"patient_id": clinic.patient_id, "substance": {"text": "Egg"}},
                             headers=idem(own_key), status=202).json["data"]
    assert [s["submission_id"] for s in testapp.get(clinic.url("submissions"), headers=own).json["data"]] == [
        sent["submission_id"]]
    testapp.get(clinic.url(f"submissions/{sent['submission_id']}"), headers=clinic.headers, status=404)


def _events(world, clinic_id):
    with world.request() as request:
        open_clinic(request.db, clinic_id)
        return [(e.type, str(e.subject_id), e.data) for e in request.db.scalars(select(Event).order_by(Event.seq))]


def test_every_decision_emits_submission_decided(recording_clinic, testapp, world):
    clinic = recording_clinic
    accepted = clinic.allergy("Peanut").json["data"]["submission_id"]
    declined = clinic.allergy("Latex").json["data"]["submission_id"]
    withdrawn = clinic.allergy("Egg").json["data"]["submission_id"]
    clinic.accept(accepted)
    clinic.decline(declined, "--reason", "duplicate entry")
    testapp.delete(clinic.url(f"submissions/{withdrawn}"), headers=clinic.headers)
    ok("auto-accept", "set", "--clinic", clinic.id, "--workspace", clinic.connected.workspace_id,
       "--kinds", "condition", "--on")
    automatic = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": "I10"}).json["data"]
    assert _events(world, clinic.id) == [
        ("submission.decided", sid, {"submission_id": sid, "resource_type": kind, "review_status": status})
        for sid, kind, status in ((accepted, "allergy", "confirmed"), (declined, "allergy", "rejected"),
                                  (withdrawn, "allergy", "rejected"),
                                  (automatic["submission_id"], "condition", "confirmed"))]


def test_a_refused_send_leaves_no_submission_and_no_event(recording_clinic, testapp, world):
    recording_clinic.allergy("none", status=400)
    assert testapp.get(recording_clinic.url("submissions"), headers=recording_clinic.headers).json["data"] == []
    assert _events(world, recording_clinic.id) == []
