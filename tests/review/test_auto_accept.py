"""Automatic acceptance: per clinic, per key or per connected workspace, per kind; off by default; new items
only; pauses on unusual volume; a rolled key or a new connection starts with it off."""

import datetime
import time
import uuid

import pytest
import webtest
from fhir.resources.R4B.allergyintolerance import AllergyIntolerance

from clinicrecords.clock import now as clock_now
from tests.common.clinical import idem
from tests.review.conftest import Clinic, ok, refused

CONDITION = {"icd10_code": "I10"}


def _key_id(full_key):
    return full_key.split("_")[2]


def _auto(clinic, *sender, kinds="allergy", switch="--on"):
    return ok("auto-accept", "set", "--clinic", clinic.id, *sender, "--kinds", kinds, switch)


def _workspace(clinic):
    return ("--workspace", clinic.connected.workspace_id)


def _key(clinic):
    return ("--key", _key_id(clinic.connected.key))


def test_off_by_default(clinic):
    assert clinic.allergy().json["data"]["review_status"] == "pending"


@pytest.mark.parametrize("sender", [_key, _workspace])
def test_on_accepts_new_items_automatically_reading_unconfirmed(clinic, testapp, sender):
    _auto(clinic, *sender(clinic))
    response = clinic.allergy("Peanut")
    submission = response.json["data"]
    assert response.status_int == 202
    assert submission["review_status"] == "confirmed" and submission["accepted_automatically"] is True
    assert submission["result_record_id"] == submission["target_id"] and submission["decided_at"]
    url = clinic.url(f"allergies/{submission['target_id']}")
    allergy = testapp.get(url, headers=clinic.headers).json["data"]
    assert allergy["accepted_by"] == "automatic" and allergy["verification_status"] == "unconfirmed"
    fhir = testapp.get(url, headers={**clinic.headers, "Accept": "application/fhir+json"}).json
    AllergyIntolerance.model_validate(fhir)
    assert fhir["verificationStatus"]["coding"][0]["code"] == "unconfirmed"
    assert {"url": "urn:clinicrecords:fhir:extension:accepted-by", "valueString": "automatic"} in fhir["extension"]

    staff = str(uuid.uuid4())
    reviewed = ok("item", "review", "--clinic", clinic.id, "--kind", "allergy", submission["target_id"],
                  "--staff-id", staff)["item"]
    assert reviewed["verification_status"] == "confirmed" and reviewed["reviewed_by_staff_id"] == staff
    allergy = testapp.get(url, headers=clinic.headers).json["data"]
    assert allergy["verification_status"] == "confirmed" and allergy["reviewed_at"]
    assert allergy["reviewed_by_staff_id"] == staff and allergy["accepted_by"] == "automatic"
    refused("item", "review", "--clinic", clinic.id, "--kind", "allergy", submission["target_id"])


def test_an_automatically_accepted_submission_cannot_be_withdrawn(clinic, testapp):
    _auto(clinic, *_key(clinic))
    submission = clinic.allergy().json["data"]
    response = testapp.delete(clinic.url(f"submissions/{submission['submission_id']}"), headers=clinic.headers,
                              status=409)
    assert response.json["code"] == "submission_not_pending"


def test_only_the_kinds_switched_on(clinic):
    _auto(clinic, *_key(clinic), kinds="condition")
    assert clinic.allergy().json["data"]["review_status"] == "pending"
    assert clinic.send("conditions", {"patient_id": clinic.patient_id, **CONDITION}).json["data"][
        "review_status"] == "confirmed"


def test_switched_off_again(clinic):
    _auto(clinic, *_workspace(clinic))
    _auto(clinic, *_workspace(clinic), switch="--off")
    assert clinic.allergy().json["data"]["review_status"] == "pending"


def test_updates_retractions_and_no_known_allergies_always_wait(clinic, testapp):
    _auto(clinic, *_key(clinic))
    created = clinic.allergy("Peanut").json["data"]
    url = f"allergies/{created['target_id']}"
    assert clinic.send(url, {"criticality": "high"}, method="patch").json["data"]["review_status"] == "pending"
    retraction = clinic.send(url, {"clinical_status": "entered_in_error"}, method="patch").json["data"]
    assert retraction["action"] == "retract" and retraction["review_status"] == "pending"
    statement = clinic.send("allergies", {"patient_id": clinic.patient_id, "no_known_allergies": True}).json["data"]
    assert statement["action"] == "no_known_allergies" and statement["review_status"] == "pending"


def test_a_duplicate_allergy_is_never_accepted_automatically(clinic):
    _auto(clinic, *_key(clinic))
    assert clinic.allergy("Peanut").json["data"]["review_status"] == "confirmed"
    assert clinic.allergy("PEANUT").json["data"]["review_status"] == "pending"


def test_a_per_key_setting_does_not_follow_a_rolled_key(clinic, world, testapp):
    _auto(clinic, *_key(clinic))
    rolled = world.key(workspace_id=clinic.connected.workspace_id, mode="live")
    body = {"patient_id": clinic.patient_id, "substance": {"text": "Peanut"}}
    sent = testapp.post_json(clinic.url("allergies"), body, headers=idem(rolled), status=202)
    assert sent.json["data"]["review_status"] == "pending"


def test_a_workspace_setting_covers_its_keys_but_not_a_new_connection(clinic, world, testapp):
    other_key = world.key(workspace_id=clinic.connected.workspace_id, mode="live")
    _auto(clinic, *_workspace(clinic))
    body = {"patient_id": clinic.patient_id, "substance": {"text": "Peanut"}}
    assert testapp.post_json(clinic.url("allergies"), body, headers=idem(other_key)).json["data"]["review_status"] == \
        "confirmed"
    world.revoke_connection(clinic.connected.workspace_id, clinic.id)
    world.grant(clinic.connected.workspace_id, clinic.id)
    body["substance"]["text"] = "Latex"
    assert testapp.post_json(clinic.url("allergies"), body, headers=idem(other_key)).json["data"]["review_status"] == \
        "pending"



def _send_as(testapp, clinic, key, substance):
    body = {"patient_id": clinic.patient_id, "substance": {"text": substance}}
    return testapp.post_json(clinic.url("allergies"), body, headers=idem(key), status=202).json["data"]


def _expire_soon(world, clinic):
    """Approve the organization again with an expiry a moment away (room for a setting and a send first, even on a
    loaded machine: 300 ms was not), and wait until it has passed."""
    expires_at = clock_now() + datetime.timedelta(seconds=3)
    world.grant(clinic.connected.workspace_id, clinic.id, expires_at=expires_at)
    return expires_at


def _until(moment):
    while clock_now() <= moment:
        time.sleep(0.05)


def test_a_per_key_setting_does_not_survive_a_revoked_and_reapproved_connection(clinic, world, testapp):
    """Submission rule 5: a new connection starts with automatic acceptance off, the key's own setting too."""
    _auto(clinic, *_key(clinic))
    assert _send_as(testapp, clinic, clinic.connected.key, "Peanut")["review_status"] == "confirmed"
    world.revoke_connection(clinic.connected.workspace_id, clinic.id)
    world.grant(clinic.connected.workspace_id, clinic.id)
    assert _send_as(testapp, clinic, clinic.connected.key, "Latex")["review_status"] == "pending"
    _auto(clinic, *_key(clinic))  # the clinic switches it on again for the new connection
    assert _send_as(testapp, clinic, clinic.connected.key, "Sesame")["review_status"] == "confirmed"


@pytest.mark.parametrize("sender", [_key, _workspace])
def test_a_setting_does_not_survive_an_expired_connection_being_reapproved(clinic, world, testapp, sender):
    expires_at = _expire_soon(world, clinic)
    try:
        _auto(clinic, *sender(clinic))
        assert _send_as(testapp, clinic, clinic.connected.key, "Peanut")["review_status"] == "confirmed"
        _until(expires_at)
        testapp.post_json(clinic.url("allergies"), {}, headers=idem(clinic.connected.key), status=404)  # expired
    finally:
        world.grant(clinic.connected.workspace_id, clinic.id)  # the clinic approves the organization again
    assert _send_as(testapp, clinic, clinic.connected.key, "Latex")["review_status"] == "pending"
    shown = ok("auto-accept", "show", "--clinic", clinic.id)["settings"]
    assert [setting["enabled"] for setting in shown] == [True]  # still on, for the connection it was made for


@pytest.mark.parametrize("sender", [_key, _workspace])
def test_narrowing_a_connection_in_force_keeps_its_settings(clinic, world, testapp, sender):
    """Granting again while the connection is in force changes its scopes, not the connection."""
    _auto(clinic, *sender(clinic))
    world.grant(clinic.connected.workspace_id, clinic.id, {"allergies:read", "allergies:write"})
    assert _send_as(testapp, clinic, clinic.connected.key, "Peanut")["review_status"] == "confirmed"


def test_a_workspace_setting_does_not_cover_a_key_created_after_it_was_switched_on(clinic, world, testapp):
    """Spec, Submission rule 5: a rolled (or new) key starts with automatic acceptance off, even when its
    organization has an organization-wide setting. The clinic switches it on for that key, or again for the
    organization."""
    switched = _auto(clinic, *_workspace(clinic))["settings"][0]
    assert switched["switched_on_at"]
    assert clinic.allergy("Peanut").json["data"]["review_status"] == "confirmed"  # the key that existed then
    rolled_key_id, rolled = world.key_row(workspace_id=clinic.connected.workspace_id, mode="live")
    headers = {"Authorization": f"Bearer {rolled}"}

    def send(substance):
        body = {"patient_id": clinic.patient_id, "substance": {"text": substance}}
        return testapp.post_json(clinic.url("allergies"), body, status=202,
                                 headers={**headers, "Idempotency-Key": str(uuid.uuid4())}).json["data"]

    assert send("Latex")["review_status"] == "pending"
    _auto(clinic, "--key", rolled_key_id)
    assert send("Sesame")["review_status"] == "confirmed"
    newer_key_id, newer = world.key_row(workspace_id=clinic.connected.workspace_id, mode="live")
    headers = {"Authorization": f"Bearer {newer}"}
    assert send("Egg")["review_status"] == "pending"
    _auto(clinic, *_workspace(clinic))  # switched on again: now covers every key that exists
    assert send("Shellfish")["review_status"] == "confirmed"


def test_the_volume_pause(make_app, world):
    app = make_app(**{"review.auto_accept_pause_threshold": "2", "review.auto_accept_pause_window_minutes": "60"})
    clinic = Clinic(webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"}), world, world.connected())
    _auto(clinic, *_workspace(clinic), kinds="allergy,condition")
    statuses = [clinic.allergy(name).json["data"]["review_status"] for name in ("Peanut", "Latex", "Egg", "Soy")]
    assert statuses == ["confirmed", "confirmed", "pending", "pending"]
    shown = ok("auto-accept", "show", "--clinic", clinic.id)
    [pause] = shown["pauses"]
    assert pause["sender_id"] == str(clinic.connected.workspace_id) and pause["kind"] == "allergy"
    assert (pause["accepted_in_window"], pause["threshold"], pause["window_minutes"]) == (2, 2, 60)
    assert pause["paused_at"] and pause["resumed_at"] is None
    assert {s["kind"]: s["paused_at"] is not None for s in shown["settings"]} == {"allergy": True, "condition": False}

    _auto(clinic, *_workspace(clinic), kinds="allergy")  # the operator resumes it
    assert ok("auto-accept", "show", "--clinic", clinic.id)["pauses"][0]["resumed_at"]


@pytest.mark.parametrize("argv", [
    ("--kinds", "allergy", "--on"),  # no sender
    ("--key", "0123456789abcdef", "--kinds", "allergy", "--on"),
    ("--workspace", "00000000-0000-4000-8000-000000000000", "--kinds", "allergy", "--on"),
    ("--workspace", "WS", "--kinds", "allergy,vaccine", "--on"),
    ("--workspace", "WS", "--kinds", "", "--on"),
    ("--workspace", "WS", "--kinds", "allergy"),  # neither --on nor --off
    ("--workspace", "WS", "--key", "0123456789abcdef", "--kinds", "allergy", "--on"),
])
def test_auto_accept_set_refuses_bad_input(clinic, argv):
    argv = [str(clinic.connected.workspace_id) if arg == "WS" else arg for arg in argv]
    refused("auto-accept", "set", "--clinic", clinic.id, *argv)
    assert ok("auto-accept", "show", "--clinic", clinic.id)["settings"] == []


def test_auto_accept_set_refuses_keys_that_do_not_reach_the_clinic(clinic, world):
    other_clinic = world.clinic()
    refused("auto-accept", "set", "--clinic", clinic.id, "--key", _key_id(world.key(clinic_id=other_clinic)),
            "--kinds", "allergy", "--on")
    workspace, _ = world.workspace()
    refused("auto-accept", "set", "--clinic", clinic.id, "--key",
            _key_id(world.key(workspace_id=workspace, mode="test")), "--kinds", "allergy", "--on")
    refused("auto-accept", "set", "--clinic", str(uuid.uuid4()), *_workspace(clinic), "--kinds", "allergy", "--on")
    assert ok("auto-accept", "show", "--clinic", clinic.id)["settings"] == []
