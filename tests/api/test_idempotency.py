import threading
import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.patients.models import Patient
from clinicrecords.patients.schemas import PatientCreate


@pytest.fixture
def url(connected):
    return f"/v1/clinics/{connected.clinic_id}/patients"


def _post(testapp, connected, url, key, body=None, status=None):
    headers = {**connected.headers, "Idempotency-Key": key}
    return testapp.post_json(url, body or PatientCreate.EXAMPLE, headers=headers, status=status)


def _count(world, clinic_id):
    with world.db() as db:
        from clinicrecords.db.tenancy import bind_to_clinic

        bind_to_clinic(db, clinic_id)
        return db.scalar(select(func.count()).select_from(Patient))


def test_missing_key_where_required_is_400(testapp, connected, url):
    response = testapp.post_json(url, PatientCreate.EXAMPLE, headers=connected.headers, status=400)
    assert "Idempotency-Key" in response.json["detail"]


def test_retry_replays_the_original_answer(world, testapp, connected, url):
    first = _post(testapp, connected, url, "same-key", status=201)
    second = _post(testapp, connected, url, "same-key", status=201)
    assert second.body == first.body
    assert second.headers["Location"] == first.headers["Location"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert _count(world, connected.clinic_id) == 1


def test_same_key_different_body_is_a_conflict(testapp, connected, url):
    _post(testapp, connected, url, "k1", status=201)
    response = _post(testapp, connected, url, "k1", dict(PatientCreate.EXAMPLE, given_name="Other"), status=409)
    assert response.json["code"] == "idempotency_key_conflict"


def test_4xx_answers_are_stored_and_replayed(testapp, connected, url):
    bad = dict(PatientCreate.EXAMPLE, sex="robot")
    first = _post(testapp, connected, url, "bad-key", bad, status=400)
    second = _post(testapp, connected, url, "bad-key", bad, status=400)
    assert second.json == first.json
    assert second.headers["Idempotent-Replayed"] == "true"


def test_keys_are_per_owner(world, testapp, connected, url):
    other = world.connected()
    _post(testapp, connected, url, "shared", status=201)
    testapp.post_json(f"/v1/clinics/{other.clinic_id}/patients", PatientCreate.EXAMPLE,
                      headers={**other.headers, "Idempotency-Key": "shared"}, status=201)


def test_concurrent_reuse_is_409_reused(app, world, connected, url, engine):
    """Two real concurrent requests: the second arrives while the first holds the key."""
    import webtest
    from sqlalchemy import text

    key = str(uuid.uuid4())
    lock_key = f"idempotency:{connected.workspace_id}:{key}"
    results = {}
    # Hold the key's advisory lock from outside, exactly as a first request in flight does.
    with engine.connect() as holder:
        holder.begin()
        holder.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"), {"k": lock_key})

        def second():
            client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
            results["response"] = client.post_json(url, PatientCreate.EXAMPLE, expect_errors=True,
                                                   headers={**connected.headers, "Idempotency-Key": key})

        thread = threading.Thread(target=second)
        thread.start()
        thread.join(30)
        holder.rollback()
    assert results["response"].status_int == 409
    assert results["response"].json["code"] == "idempotency_key_reused"
