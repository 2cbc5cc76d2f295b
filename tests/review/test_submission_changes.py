"""PATCH /v1/clinics/{clinic_id}/submissions/{submission_id}: the sender changes a pending submission (spec,
submission states: "change or withdraw sent"). The fields sent are merged into what was sent (JSON merge
patch: null removes a field, objects merge, anything else replaces), the result is validated as a new send of
the same kind, and the submission answers 200, still pending. A decided one answers 409."""

import uuid

import pytest

from tests.common.clinical import headers
from tests.review.conftest import ok


def _patch(clinic, submission, body, status=200, **extra):
    return clinic.testapp.patch_json(clinic.url(f"submissions/{submission['submission_id']}"), body,
                                     headers={**clinic.headers, **extra}, status=status)


def _read(clinic, submission):
    return clinic.testapp.get(clinic.url(f"submissions/{submission['submission_id']}"),
                              headers=clinic.headers).json["data"]


def _allergy(clinic, status=202, **fields):
    body = {"patient_id": clinic.patient_id, "substance": {"text": "Peanut"}, "category": ["food"],
            "criticality": "high", "reactions": [{"manifestation": ["hives"]}], "client_reference": "intake-1",
            "origin_assistant_name": "Intake Assistant", **fields}
    return clinic.send("allergies", body, status=status).json


def test_the_sender_changes_a_pending_submission_by_merging_the_fields_sent(clinic, testapp):
    sent = _allergy(clinic)["data"]
    changed = _patch(clinic, sent, {"criticality": "low", "reactions": None, "note": "Milder than first noted.",
                                    "substance": {"rxnorm": "7980"}}).json["data"]
    assert changed["submission_id"] == sent["submission_id"] and changed["review_status"] == "pending"
    assert (changed["submitted_at"], changed["target_id"], changed["action"]) == (
        sent["submitted_at"], sent["target_id"], "create")
    assert changed["payload"] == {"patient_id": clinic.patient_id, "substance": {"text": "Peanut", "rxnorm": "7980"},
                                  "category": ["food"], "criticality": "low", "note": "Milder than first noted."}
    assert (changed["client_reference"], changed["origin_assistant_name"]) == ("intake-1", "Intake Assistant")
    assert _read(clinic, sent) == changed
    # What the clinician accepts is what the submission holds now.
    clinic.accept(sent["submission_id"])
    allergy = testapp.get(clinic.url(f"allergies/{sent['target_id']}"), headers=clinic.headers).json["data"]
    assert (allergy["criticality"], allergy["reactions"], allergy["note"]) == ("low", [], "Milder than first noted.")
    assert allergy["substance"] == {"text": "Peanut", "rxnorm": "7980"}


def test_the_reference_and_the_assistant_name_can_change_or_go(clinic):
    sent = _allergy(clinic)["data"]
    changed = _patch(clinic, sent, {"client_reference": None, "origin_assistant_name": "Triage Bot"}).json["data"]
    assert (changed["client_reference"], changed["origin_assistant_name"]) == (None, "Triage Bot")
    assert _patch(clinic, sent, {"client_reference": "intake-1b"}).json["data"]["client_reference"] == "intake-1b"


@pytest.mark.parametrize("body, pointer", [
    ({"criticality": "extreme"}, "/criticality"),
    ({"substance": {"text": "NKDA"}}, "/substance/text"),
    ({"substance": None}, "/substance"),
    ({"category": ["food", "food"]}, "/category"),
    ({"onset_date": "2024-02-30"}, "/onset_date"),
    ({"colour": "red"}, "/colour"),
    ({"substance": {"rxnorm": "99999999"}}, "/substance/rxnorm"),
    ({"patient_id": str(uuid.uuid4())}, "/patient_id"),
    ({"no_known_allergies": True}, "/no_known_allergies"),
    ({"client_reference": ""}, "/client_reference"),
    ({}, ""),
])
def test_the_merged_send_is_validated_as_a_new_send_and_a_refusal_changes_nothing(clinic, body, pointer):
    sent = _allergy(clinic)["data"]
    response = _patch(clinic, sent, body, status=400)
    assert response.json["code"] == "invalid_request"
    assert pointer in [error["pointer"] for error in response.json["errors"]]
    assert _read(clinic, sent) == sent


def test_a_condition_s_code_is_checked_and_stored_dotted(clinic):
    sent = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": "I10"}).json["data"]
    refused = _patch(clinic, sent, {"icd10_code": "Z99.999"}, status=400).json
    assert [error["pointer"] for error in refused["errors"]] == ["/icd10_code"]
    changed = _patch(clinic, sent, {"icd10_code": "e119", "display": None}).json["data"]
    assert changed["payload"]["icd10_code"] == "E11.9" and changed["payload"]["display"]


def test_a_change_submission_stays_a_change_of_the_same_item(clinic):
    created = _allergy(clinic)["data"]
    clinic.accept(created["submission_id"])
    change = clinic.send(f"allergies/{created['target_id']}", {"criticality": "low"}, method="patch").json["data"]
    assert change["action"] == "update"
    refused = _patch(clinic, change, {"substance": {"text": "Latex"}}, status=400).json
    assert [error["pointer"] for error in refused["errors"]] == ["/substance"]  # never changes: a new allergy
    mixed = _patch(clinic, change, {"clinical_status": "entered_in_error"}, status=400).json
    assert [error["pointer"] for error in mixed["errors"]] == ["/clinical_status"]  # not with other changes
    retraction = _patch(clinic, change, {"clinical_status": "entered_in_error", "criticality": None}).json["data"]
    assert retraction["action"] == "retract" and retraction["payload"] == {"clinical_status": "entered_in_error"}
    assert retraction["target_id"] == created["target_id"]


def test_a_statement_of_no_known_allergies_stays_one(clinic):
    sent = clinic.send("allergies", {"patient_id": clinic.patient_id, "no_known_allergies": True}).json["data"]
    changed = _patch(clinic, sent, {"note": "Asked at intake."}).json["data"]
    assert changed["action"] == "no_known_allergies"
    assert changed["payload"] == {"patient_id": clinic.patient_id, "note": "Asked at intake."}
    refused = _patch(clinic, sent, {"criticality": "low"}, status=400).json
    assert [error["pointer"] for error in refused["errors"]] == ["/criticality"]


def test_a_referral_change_is_refused_once_the_clinic_has_acted(clinic):
    referral = clinic.send("referrals", {"patient_id": clinic.patient_id, "reason_code": "M54.50",
                                         "specialty": "Physiotherapy"}).json["data"]
    clinic.accept(referral["submission_id"])
    change = clinic.send(f"referrals/{referral['target_id']}", {"priority": "urgent"}, method="patch").json["data"]
    ok("referral", "act", "--clinic", clinic.id, referral["target_id"], "--status", "accepted")
    refused = _patch(clinic, change, {"priority": "asap"}, status=400).json
    assert refused["code"] == "invalid_request" and "acted" in refused["errors"][0]["message"]


def test_client_reference_rules_hold_for_a_change(clinic):
    first = _allergy(clinic)["data"]
    second = _allergy(clinic, substance={"text": "Latex"}, client_reference="intake-2")["data"]
    taken = _patch(clinic, second, {"client_reference": "intake-1"}, status=409).json
    assert taken["code"] == "client_reference_conflict"
    assert [error["pointer"] for error in taken["errors"]] == ["/client_reference"]
    assert _read(clinic, second) == second
    changed = _patch(clinic, first, {"criticality": "low"}).json["data"]
    # The reference now names the changed content: resending that is the same submission, the old content
    # a conflict.
    again = _allergy(clinic, criticality="low")["data"]
    assert again["submission_id"] == first["submission_id"] and again["payload"] == changed["payload"]
    stale = _allergy(clinic, status=409)
    assert stale["code"] == "client_reference_conflict"


def test_a_decided_submission_cannot_be_changed(clinic, testapp):
    accepted, declined, withdrawn = (_allergy(clinic, substance={"text": name}, client_reference=name)["data"]
                                     for name in ("Peanut", "Egg", "Soy"))
    clinic.accept(accepted["submission_id"])
    clinic.decline(declined["submission_id"], "--reason", "Not confirmed")
    testapp.delete(clinic.url(f"submissions/{withdrawn['submission_id']}"), headers=clinic.headers)
    for submission in (accepted, declined, withdrawn):
        refused = _patch(clinic, submission, {"criticality": "low"}, status=409).json
        assert refused["code"] == "submission_not_pending"
    # Decided is decided, even for a body that would not validate.
    assert _patch(clinic, accepted, {"colour": "red"}, status=409).json["code"] == "submission_not_pending"


def test_an_automatically_accepted_submission_cannot_be_changed(clinic):
    ok("auto-accept", "set", "--clinic", clinic.id, "--workspace", clinic.connected.workspace_id, "--kinds",
       "allergy", "--on")
    sent = _allergy(clinic)["data"]
    assert sent["review_status"] == "confirmed"
    assert _patch(clinic, sent, {"criticality": "low"}, status=409).json["code"] == "submission_not_pending"


def test_only_its_sender_with_the_kind_s_write_permission_changes_it(clinic, testapp, world):
    sent = _allergy(clinic)["data"]
    url = clinic.url(f"submissions/{sent['submission_id']}")
    other = world.key(workspace_id=world.workspace()[0], mode="live")
    world.grant(world.workspace()[0], clinic.id)
    testapp.patch_json(url, {"note": "x"}, headers=headers(other), status=404)
    reader_key = world.key(workspace_id=clinic.connected.workspace_id, mode="live", scopes={"allergies:read"})
    refused = testapp.patch_json(url, {"note": "x"}, headers=headers(reader_key), status=403).json
    assert refused["code"] == "scope_missing" and "allergies:write" in refused["detail"]
    assert _read(clinic, sent) == sent


def test_an_idempotency_key_replays_the_change(clinic):
    sent = _allergy(clinic)["data"]
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = _patch(clinic, sent, {"criticality": "low"}, **key)
    again = _patch(clinic, sent, {"criticality": "low"}, **key)
    assert again.body == first.body and again.headers["Idempotent-Replayed"] == "true"
    assert _patch(clinic, sent, {"criticality": "high"}, status=409, **key).json["code"] == \
        "idempotency_key_conflict"
