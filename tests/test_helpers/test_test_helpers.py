"""Sandbox test helpers: a test key on its own sandbox does what clinic staff do; nothing else reaches them."""

import pytest
from sqlalchemy import select

from clinicrecords.clinics.services import open_clinic
from clinicrecords.encounters.schemas import SANDBOX_APP_DRAFT_ID, SANDBOX_ENCOUNTER_IDS
from clinicrecords.insurance.schemas import SANDBOX_COVERAGE_IDS
from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS
from clinicrecords.listings.models import ListingItem
from clinicrecords.review.models import Submission
from clinicrecords.sandbox.interfaces import sandbox_id

SUBMISSION = str(sandbox_id("submission:1"))
PARACETAMOL = str(SANDBOX_ITEM_IDS["paracetamol-500"])


@pytest.fixture
def sandbox(world):
    workspace_id, clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    return clinic_id, {"Authorization": f"Bearer {key}"}


def _url(clinic_id, path):
    return f"/v1/test_helpers/clinics/{clinic_id}/{path}"


def _post(testapp, clinic_id, headers, path, body=None, status=200):
    return testapp.post_json(_url(clinic_id, path), body or {}, headers=headers, status=status)


def _submission_status(world, clinic_id):
    with world.db() as db:
        open_clinic(db, clinic_id)
        return db.get(Submission, sandbox_id("submission:1")).review_status


def test_accept_a_submission_then_the_api_sees_the_decision(testapp, sandbox):
    clinic_id, headers = sandbox
    answer = _post(testapp, clinic_id, headers, "submissions/accept", {"submission_id": SUBMISSION}).json["data"]
    assert answer["object"] == "test_helper_result" and answer["action"] == "submissions.accept"
    assert answer["result"]["submission"]["review_status"] == "confirmed"
    seen = testapp.get(f"/v1/clinics/{clinic_id}/submissions/{SUBMISSION}", headers=headers).json["data"]
    assert seen["review_status"] == "confirmed"
    again = _post(testapp, clinic_id, headers, "submissions/accept", {"submission_id": SUBMISSION}, status=409)
    assert again.json["code"] == "test_helper_refused"


def test_decline_review_referral_encounter_coverage_stock_and_till(testapp, sandbox):
    clinic_id, headers = sandbox
    declined = _post(testapp, clinic_id, headers, "submissions/decline",
                     {"submission_id": SUBMISSION, "reason": "Not confirmed"}).json["data"]["result"]
    assert declined["submission"]["review_status"] == "rejected"
    reviewed = _post(testapp, clinic_id, headers, "items/review",
                     {"kind": "condition", "item_id": str(sandbox_id("condition:2"))}).json["data"]["result"]
    assert reviewed["item"]["reviewed_at"] is not None
    referral = _post(testapp, clinic_id, headers, "referrals/act",
                     {"referral_id": str(sandbox_id("referral:2")), "status": "scheduled"}).json["data"]["result"]
    assert referral["referral"]["status"] == "scheduled"
    touched = _post(testapp, clinic_id, headers, "encounters/touch",
                    {"encounter_id": str(SANDBOX_APP_DRAFT_ID)}).json["data"]["result"]
    assert touched["touched"] is True
    signed = _post(testapp, clinic_id, headers, "encounters/sign",
                   {"encounter_id": str(SANDBOX_ENCOUNTER_IDS[2])}).json["data"]["result"]
    assert signed["status"] == "completed"
    refused = _post(testapp, clinic_id, headers, "coverages/activate",
                    {"coverage_id": str(SANDBOX_COVERAGE_IDS[1])}, status=409)
    assert refused.json["code"] == "test_helper_refused"
    _post(testapp, clinic_id, headers, "coverages/confirm", {"coverage_id": str(SANDBOX_COVERAGE_IDS[1])})
    active = _post(testapp, clinic_id, headers, "coverages/activate",
                   {"coverage_id": str(SANDBOX_COVERAGE_IDS[1])}).json["data"]["result"]
    assert active == {"coverage_id": str(SANDBOX_COVERAGE_IDS[1]), "confirmation_status": "confirmed",
                      "coverage_active": True}
    stock = _post(testapp, clinic_id, headers, "stock/set", {"item_id": PARACETAMOL, "quantity": 0})
    assert stock.json["data"]["result"]["band"] == "out"
    assert _post(testapp, clinic_id, headers, "till/stale").json["data"]["result"]["stale"] is True
    assert _post(testapp, clinic_id, headers, "till/report").json["data"]["result"]["stale"] is False


def test_an_unknown_record_and_a_bad_body_are_refused(testapp, sandbox):
    clinic_id, headers = sandbox
    missing = _post(testapp, clinic_id, headers, "submissions/accept",
                    {"submission_id": str(sandbox_id("nothing"))}, status=409)
    assert missing.json["code"] == "test_helper_refused"
    bad = _post(testapp, clinic_id, headers, "stock/set", {"item_id": PARACETAMOL, "quantity": -1}, status=400)
    assert bad.json["errors"][0]["pointer"] == "/quantity"


def test_reset_restores_the_seed_and_its_listing_rows(testapp, world, sandbox):
    clinic_id, headers = sandbox
    world.webhook(workspace_id=world_workspace(world, clinic_id), mode="test")
    _post(testapp, clinic_id, headers, "submissions/accept", {"submission_id": SUBMISSION})
    _post(testapp, clinic_id, headers, "stock/set", {"item_id": PARACETAMOL, "quantity": 0})
    testapp.post_json(f"/v1/clinics/{clinic_id}/patients", {"given_name": "Zed", "family_name": "Extra",
                                                           "birth_date": "1990-01-01"},
                      headers={**headers, "Idempotency-Key": "reset-1"}, expect_errors=True)
    before = _listing_rows(world, clinic_id)
    last = testapp.get(f"/v1/clinics/{clinic_id}/events", headers=headers).json["events"]
    reset = _post(testapp, clinic_id, headers, "reset").json["data"]["result"]
    assert _submission_status(world, clinic_id) == "pending"
    item = testapp.get(f"/v1/clinics/{clinic_id}/inventory/items/{PARACETAMOL}", headers=headers).json["data"]
    assert item["quantity"] == 8
    after = _listing_rows(world, clinic_id)
    assert set(after) == set(before) and after[SANDBOX_ITEM_IDS["paracetamol-500"]] != "out"
    assert reset["last_seq"] >= len(last)
    _post(testapp, clinic_id, headers, "stock/set", {"item_id": PARACETAMOL, "quantity": 0})
    fresh = testapp.get(f"/v1/clinics/{clinic_id}/events", headers=headers).json["events"]
    assert fresh and min(event["seq"] for event in fresh) > reset["last_seq"]


def world_workspace(world, clinic_id):
    from clinicrecords.clinics.models import Clinic

    with world.db() as db:
        return db.get(Clinic, clinic_id).sandbox_of_workspace_id


def _listing_rows(world, clinic_id):
    with world.db() as db:
        return dict(db.execute(select(ListingItem.item_id, ListingItem.band)
                               .where(ListingItem.clinic_id == clinic_id)).all())


def test_live_and_clinic_keys_and_real_clinics_never_reach_the_helpers(testapp, world, connected):
    """A live key (on its real clinic or its own sandbox), a clinic-owned key, and a test key aimed at a real
    clinic or at another workspace's sandbox all get the same 404; the real clinic is untouched."""
    real = world.clinic(seed=True)
    world.grant(connected.workspace_id, real)
    clinic_key = {"Authorization": f"Bearer {world.key(clinic_id=real)}"}
    test_key = {"Authorization": f"Bearer {world.key(workspace_id=connected.workspace_id, mode='test')}"}
    _, other_sandbox = world.workspace("Another")
    attempts = [(connected.headers, real), (connected.headers, connected.sandbox_clinic_id),
                (clinic_key, real), (test_key, real), (test_key, other_sandbox)]
    for headers, clinic_id in attempts:
        for path in ("submissions/accept", "reset"):
            body = {"submission_id": SUBMISSION} if path != "reset" else {}
            answer = _post(testapp, clinic_id, headers, path, body, status=404)
            assert answer.json["code"] == "not_found"
    assert testapp.post_json("/v1/test_helpers/clinics", {}, headers=connected.headers, status=404)
    assert _submission_status(world, real) == "pending"
    assert _submission_status(world, other_sandbox) == "pending"
