"""The Python client (clients/python) against the real application, through httpx's WSGI transport."""

import json
import time

import httpx
import pytest

from clinicrecords.events import signing
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from clinicrecords.sandbox.interfaces import sandbox_id
from clinicrecords_client import (Client, Conflict, InvalidRequest, NotFound, ServerError,
                                  WebhookVerificationError, verify_webhook)


@pytest.fixture
def sandbox(world):
    workspace_id, clinic_id = world.workspace()
    return workspace_id, clinic_id, world.key(workspace_id=workspace_id, mode="test")


def _client(app, key, **kwargs):
    return Client("http://localhost", key, transport=httpx.WSGITransport(app=app), **kwargs)


def test_reads_pages_and_typed_problems(app, sandbox):
    _, clinic_id, key = sandbox
    with _client(app, key) as api:
        assert api.connections()[0]["clinic_id"] == str(clinic_id)
        clinic = api.clinic(clinic_id)
        one_by_one = list(clinic.patients.iterate(limit=1))
        assert len(one_by_one) >= 3 and len({p["id"] for p in one_by_one}) == len(one_by_one)
        assert [p["id"] for p in one_by_one] == [p["id"] for p in clinic.patients.iterate()]
        with pytest.raises(NotFound) as missing:
            clinic.patients.get(sandbox_id("nobody"))
        assert missing.value.code == "not_found" and missing.value.request_id.startswith("req_")
        with pytest.raises(InvalidRequest) as invalid:
            clinic.allergies.create({"patient_id": "not-a-uuid"})
        assert invalid.value.status == 400 and invalid.value.errors


def test_a_write_is_sent_once_with_an_idempotency_key_and_decided_with_the_test_helpers(app, sandbox):
    _, clinic_id, key = sandbox
    body = {"patient_id": str(SANDBOX_PATIENT_IDS[0]), "substance": {"text": "Latex"}, "category": ["environment"],
            "criticality": "low", "type": "allergy"}
    with _client(app, key) as api:
        clinic = api.clinic(clinic_id)
        first = clinic.allergies.create(body, idempotency_key="client-test-1")
        again = clinic.allergies.create(body, idempotency_key="client-test-1")  # a retry: replayed, not resent
        assert again["submission_id"] == first["submission_id"]
        decided = api.test_helpers.accept_submission(clinic_id, first["submission_id"])
        assert decided["submission"]["review_status"] == "confirmed"
        assert clinic.submissions.get(first["submission_id"])["review_status"] == "confirmed"
        with pytest.raises(Conflict) as refused:
            api.test_helpers.accept_submission(clinic_id, first["submission_id"])
        assert refused.value.code == "test_helper_refused"


def test_retries_honour_retry_after_and_keep_the_idempotency_key(app, sandbox):
    _, clinic_id, key = sandbox
    seen, pauses = [], []
    inner = httpx.WSGITransport(app=app)

    def flaky(request):
        seen.append(request.headers.get("Idempotency-Key"))
        if len(seen) < 3:
            return httpx.Response(503 if len(seen) == 1 else 429, headers={"Retry-After": "7"},
                                  json={"code": "unavailable"})
        return inner.handle_request(request)

    api = Client("http://localhost", key, transport=httpx.MockTransport(flaky), sleep=pauses.append)
    with api:
        result = api.test_helpers.till_stale(clinic_id)
    assert result["stale"] is True
    assert pauses == [7.0, 7.0] and len(set(seen)) == 1 and seen[0]
    failing = Client("http://localhost", key, max_retries=1, sleep=pauses.append,
                     transport=httpx.MockTransport(lambda r: httpx.Response(
                         500, json={"code": "internal_error", "request_id": "req_x"})))
    with failing, pytest.raises(ServerError) as error:
        failing.me()
    assert error.value.request_id == "req_x" and len(pauses) == 3


def test_the_change_feed_catches_up_once_per_event(app, world, sandbox):
    workspace_id, clinic_id, key = sandbox
    world.webhook(workspace_id=workspace_id, mode="test")
    with _client(app, key) as api:
        for quantity in (0, 50, 0):
            api.test_helpers.set_stock(clinic_id, sandbox_id("inventory-item:paracetamol-500"), quantity)
        seen = set()
        events = list(api.events(clinic_id, limit=1, seen=seen))
        assert len(events) >= 3 and [e["seq"] for e in events] == sorted({e["seq"] for e in events})
        assert list(api.events(clinic_id, after_seq=0, seen=seen)) == []  # a replay yields nothing new
        resume = events[-1]["seq"]
        api.test_helpers.set_stock(clinic_id, sandbox_id("inventory-item:paracetamol-500"), 50)
        assert [e["seq"] > resume for e in api.events(clinic_id, after_seq=resume, seen=seen)] == [True]


def test_the_webhook_verifier_accepts_the_service_signature_only():
    secret = signing.new_secret()
    body = json.dumps({"type": "inventory.item.updated"}).encode()
    now = int(time.time())
    headers = signing.headers([signing.new_secret(), secret], "msg_1", now, body)
    assert verify_webhook(secret, headers, body) == {"type": "inventory.item.updated"}
    for bad_headers, bad_body, at in ((headers, body + b" ", now), (headers, body, now + 3600),
                                      ({**headers, "webhook-signature": "v1,AAAA"}, body, now), ({}, body, now)):
        with pytest.raises(WebhookVerificationError):
            verify_webhook(secret, bad_headers, bad_body, now=at)


def test_connections_follow_every_page(app, world):
    workspace_id, _ = world.workspace()
    clinics = [world.clinic(f"Clinic {n}") for n in range(3)]
    for clinic_id in clinics:
        world.grant(workspace_id, clinic_id, {"patients:read"})
    with _client(app, world.key(workspace_id=workspace_id, mode="live")) as api:
        assert [entry["clinic_id"] for entry in api.connections(limit=1)] == [str(c) for c in clinics]
