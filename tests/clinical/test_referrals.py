"""Referral states: received → accepted | declined | scheduled | cancelled; accepted → scheduled | completed |
cancelled; scheduled → completed | cancelled; the sender changes or takes back only while received."""

import uuid

import pytest
from fhir.resources.R4B.servicerequest import ServiceRequest

from clinicrecords.clinical.staff import REFERRAL_TRANSITIONS
from tests.review.conftest import ok, refused

BODY = {"reason_code": "M54.50", "specialty": "Physiotherapy", "reason_text": "Low back pain"}


def _referral(clinic):
    sent = clinic.send("referrals", {"patient_id": clinic.patient_id, **BODY}).json["data"]
    clinic.accept(sent["submission_id"])
    return sent["target_id"]


def _act(clinic, referral_id, status, *extra):
    return ok("referral", "act", "--clinic", clinic.id, referral_id, "--status", status, *extra)["referral"]


def test_post_needs_an_idempotency_key(clinic, testapp):
    response = testapp.post_json(clinic.url("referrals"), {"patient_id": clinic.patient_id, **BODY},
                                 headers=clinic.headers, status=400)
    assert response.json["code"] == "invalid_request"


@pytest.mark.parametrize("fields, pointer", [
    ({"reason_code": "XYZ"}, "/reason_code"),
    ({"reason_code": None}, "/reason_code"),
    ({"specialty": None}, "/specialty"),
    ({"priority": "whenever"}, "/priority"),
    ({"status": "accepted"}, "/status"),
])
def test_referral_refusals(clinic, fields, pointer):
    body = {"patient_id": clinic.patient_id, **BODY, **fields}
    body = {k: v for k, v in body.items() if v is not None}
    response = clinic.send("referrals", body, status=400)
    assert pointer in {e["pointer"] for e in response.json["errors"]}


def test_a_referral_reaches_the_chart_as_received(clinic, testapp):
    referral_id = _referral(clinic)
    referral = testapp.get(clinic.url(f"referrals/{referral_id}"), headers=clinic.headers).json["data"]
    assert referral["status"] == "received" and referral["reason_code"] == "M54.50"
    fhir = testapp.get(clinic.url(f"referrals/{referral_id}"),
                       headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    ServiceRequest.model_validate(fhir)
    assert fhir["status"] == "active" and fhir["reasonCode"][0]["coding"][0]["code"] == "M54.50"


@pytest.mark.parametrize("status", ["accepted", "declined", "scheduled", "completed", "cancelled"])
def test_no_request_moves_a_referral(clinic, status):
    referral_id = _referral(clinic)
    response = clinic.send(f"referrals/{referral_id}", {"status": status}, method="patch", status=400)
    assert response.json["errors"][0]["pointer"] == "/status"


def test_the_sender_changes_and_takes_back_while_received(clinic, testapp):
    referral_id = _referral(clinic)
    change = clinic.send(f"referrals/{referral_id}", {"priority": "urgent"}, method="patch").json["data"]
    assert change["action"] == "update" and change["review_status"] == "pending"
    clinic.accept(change["submission_id"])
    take_back = clinic.send(f"referrals/{referral_id}", {"status": "entered_in_error"}, method="patch").json["data"]
    assert take_back["action"] == "retract"
    clinic.accept(take_back["submission_id"])
    referral = testapp.get(clinic.url(f"referrals/{referral_id}"), headers=clinic.headers).json["data"]
    assert (referral["priority"], referral["status"]) == ("urgent", "entered_in_error")
    refused("referral", "act", "--clinic", clinic.id, referral_id, "--status", "accepted")


def test_after_the_clinic_acts_patch_is_invalid_request(clinic):
    referral_id = _referral(clinic)
    pending_change = clinic.send(f"referrals/{referral_id}", {"priority": "urgent"}, method="patch").json["data"]
    _act(clinic, referral_id, "accepted")
    response = clinic.send(f"referrals/{referral_id}", {"priority": "stat"}, method="patch", status=400)
    assert response.json["code"] == "invalid_request"
    assert clinic.send(f"referrals/{referral_id}", {"status": "entered_in_error"}, method="patch",
                       status=400).json["code"] == "invalid_request"
    # A change sent before the clinic acted can no longer be confirmed.
    assert "acted" in refused("submission", "accept", "--clinic", clinic.id, pending_change["submission_id"])


def test_only_the_sender_may_change_it(clinic, world, testapp):
    referral_id = _referral(clinic)
    other_workspace, _ = world.workspace(name="Other")
    world.grant(other_workspace, clinic.id)
    other = {"Authorization": f"Bearer {world.key(workspace_id=other_workspace, mode='live')}"}
    testapp.patch_json(clinic.url(f"referrals/{referral_id}"), {"priority": "urgent"}, headers=other, status=400)


@pytest.mark.parametrize("status", ["declined", "cancelled"])
def test_the_reason_is_shown_only_to_the_sender(clinic, world, testapp, status):
    referral_id = _referral(clinic)
    acted = _act(clinic, referral_id, status, "--reason", "Outside our catchment area")
    assert acted["status"] == status and acted["status_reason"] == "Outside our catchment area"
    url = clinic.url(f"referrals/{referral_id}")
    assert testapp.get(url, headers=clinic.headers).json["data"]["status_reason"] == "Outside our catchment area"
    fhir = testapp.get(url, headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    ServiceRequest.model_validate(fhir)
    assert {"url": "urn:clinicrecords:fhir:extension:status-reason",
            "valueString": "Outside our catchment area"} in fhir["extension"]

    other_workspace, _ = world.workspace(name="Other")
    world.grant(other_workspace, clinic.id)
    other = {"Authorization": f"Bearer {world.key(workspace_id=other_workspace, mode='live')}"}
    assert testapp.get(url, headers=other).json["data"]["status_reason"] is None
    fhir = testapp.get(url, headers={**other, "Accept": "application/fhir+json"}).json
    assert "Outside our catchment area" not in str(fhir)
    listed = testapp.get(clinic.url("referrals"), headers=other).json["data"]
    assert listed[0]["status_reason"] is None


ALL = ("received", "accepted", "scheduled", "completed", "declined", "cancelled", "entered_in_error")
PATHS = {"received": [], "accepted": ["accepted"], "scheduled": ["scheduled"], "completed": ["accepted", "completed"],
         "declined": ["declined"], "cancelled": ["cancelled"]}


@pytest.mark.parametrize("start", list(PATHS))
@pytest.mark.parametrize("target", ALL)
def test_every_staff_transition(clinic, start, target):
    referral_id = _referral(clinic)
    for step in PATHS[start]:
        _act(clinic, referral_id, step)
    if target in REFERRAL_TRANSITIONS[start]:
        assert _act(clinic, referral_id, target)["status"] == target
    else:
        refused("referral", "act", "--clinic", clinic.id, referral_id, "--status", target)


def test_referral_act_refuses_bad_input(clinic):
    referral_id = _referral(clinic)
    refused("referral", "act", "--clinic", clinic.id, referral_id, "--status", "accepted", "--reason", "ok")
    refused("referral", "act", "--clinic", clinic.id, referral_id, "--status", "declined", "--reason", " ")
    refused("referral", "act", "--clinic", clinic.id, str(uuid.uuid4()), "--status", "accepted")
    refused("referral", "act", "--clinic", str(uuid.uuid4()), referral_id, "--status", "accepted")
    refused("referral", "act", "--clinic", clinic.id, "not-a-uuid", "--status", "accepted")
    assert _act(clinic, referral_id, "accepted")["status"] == "accepted"
