import datetime
import json
import threading
import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.db import locks
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


def test_the_same_json_written_differently_is_a_replay(world, testapp, connected, url):
    """Key order and whitespace are how a client's encoder writes, not what it asks."""
    first = _post(testapp, connected, url, "reordered", status=201)
    reordered = json.dumps(dict(reversed(list(PatientCreate.EXAMPLE.items()))), indent=3).encode()
    second = testapp.post(url, reordered, headers={**connected.headers, "Idempotency-Key": "reordered"},
                          content_type="application/json", status=201)
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.body == first.body
    assert _count(world, connected.clinic_id) == 1


def test_a_body_that_is_not_json_is_compared_as_its_bytes(testapp, connected, url):
    headers = {**connected.headers, "Idempotency-Key": "not-json"}
    testapp.post(url, b"{not json", headers=headers, content_type="application/json", status=400)
    response = testapp.post(url, b"{not json ", headers=headers, content_type="application/json", status=409)
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


@pytest.mark.commits  # the key's lock is held on a connection of its own while a thread sends the request
def test_concurrent_reuse_is_409_reused(app, world, connected, url, engine):
    """Two real concurrent requests: the second arrives while the first holds the key."""
    import webtest

    key = str(uuid.uuid4())
    results = {}
    # Hold the key's advisory lock from outside, exactly as a first request in flight does: the lock the
    # claim takes is the one db/locks.py names.
    with engine.connect() as holder:
        holder.begin()
        locks.hold(holder, "idempotency", connected.workspace_id, key)

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


def _age_records(world, owner_id, hours):
    from sqlalchemy import update

    from clinicrecords.api.models import IdempotencyRecord

    with world.db() as db:
        db.execute(update(IdempotencyRecord).where(IdempotencyRecord.owner_id == owner_id)
                   .values(created_at=func.now() - datetime.timedelta(hours=hours)))


def _records(world, owner_id):
    from clinicrecords.api.models import IdempotencyRecord

    with world.db() as db:
        return set(db.scalars(select(IdempotencyRecord.key).where(IdempotencyRecord.owner_id == owner_id)))


def test_answers_are_kept_24_hours_then_ignored(world, testapp, connected, url):
    first = _post(testapp, connected, url, "old-key", status=201)
    _age_records(world, connected.workspace_id, 23)
    assert _post(testapp, connected, url, "old-key", status=201).body == first.body  # still replayed
    _age_records(world, connected.workspace_id, 25)
    again = _post(testapp, connected, url, "old-key", status=201)  # runs afresh: a new patient
    assert "Idempotent-Replayed" not in again.headers
    assert again.json["data"]["id"] != first.json["data"]["id"]
    # ... and after that the fresh answer is the one replayed; a different body is no conflict once expired.
    assert _post(testapp, connected, url, "old-key", status=201).json == again.json
    _age_records(world, connected.workspace_id, 25)
    _post(testapp, connected, url, "old-key", dict(PatientCreate.EXAMPLE, given_name="Other"), status=201)
    assert _count(world, connected.clinic_id) == 3


def test_periodic_task_prunes_expired_answers(world, testapp, connected, url):
    from huey.api import PeriodicTask

    from clinicrecords.api.tasks import prune_idempotency_records

    _post(testapp, connected, url, "expired", status=201)
    _age_records(world, connected.workspace_id, 25)
    _post(testapp, connected, url, "fresh", status=201)
    assert _records(world, connected.workspace_id) == {"expired", "fresh"}
    assert issubclass(prune_idempotency_records.task_class, PeriodicTask)
    prune_idempotency_records.call_local()
    assert _records(world, connected.workspace_id) == {"fresh"}


@pytest.mark.commits  # a table lock held on a connection of its own must make the request wait
def test_a_5xx_is_not_stored_so_a_retry_runs_again(make_app, world, connected, url, engine):
    """A real 503: the insert waits on a lock until the statement timeout cancels it."""
    import webtest
    from sqlalchemy import text

    from clinicrecords.db.tenancy import schema_name

    impatient = webtest.TestApp(make_app(**{"database.statement_timeout_ms": "300"}),
                                extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    headers = {**connected.headers, "Idempotency-Key": "after-timeout"}
    with engine.connect() as holder:
        holder.begin()
        holder.execute(text(f'LOCK TABLE "{schema_name(connected.clinic_id)}".patients IN ACCESS EXCLUSIVE MODE'))
        failed = impatient.post_json(url, PatientCreate.EXAMPLE, headers=headers, status=503)
        holder.rollback()
    assert failed.json["code"] == "service_unavailable"
    assert _records(world, connected.workspace_id) == set()
    retried = impatient.post_json(url, PatientCreate.EXAMPLE, headers=headers, status=201)
    assert "Idempotent-Replayed" not in retried.headers
    assert _count(world, connected.clinic_id) == 1
    assert _records(world, connected.workspace_id) == {"after-timeout"}


@pytest.mark.parametrize("key", ["x" * 256, "clé", "has space", ""])
def test_malformed_keys_are_400_naming_the_header(testapp, connected, url, key):
    response = testapp.post_json(url, PatientCreate.EXAMPLE, headers={**connected.headers, "Idempotency-Key": key},
                                 status=400)
    assert response.json["errors"][0]["location"] == "header"


@pytest.mark.commits  # a table lock held on a connection of its own while a thread sends the request
def test_two_concurrent_requests_with_one_key(app, world, connected, url, engine):
    """The first request really runs (its insert waits on a table lock held here); the second, sent with the
    same key meanwhile, is refused at once; the first then completes and its answer is what a retry gets."""
    import time

    import webtest
    from sqlalchemy import text

    from clinicrecords.db.tenancy import schema_name

    headers = {**connected.headers, "Idempotency-Key": "concurrent"}
    results = {}

    def first():
        client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        results["first"] = client.post_json(url, PatientCreate.EXAMPLE, headers=headers, expect_errors=True)

    with engine.connect() as holder:
        holder.begin()
        holder.execute(text(f'LOCK TABLE "{schema_name(connected.clinic_id)}".patients IN ACCESS EXCLUSIVE MODE'))
        thread = threading.Thread(target=first)
        thread.start()
        # Wait until the first request is blocked on the table lock (it already holds the key).
        for _ in range(200):
            waiting = holder.execute(text("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = "
                                          "CAST(:table AS regclass)"),
                                     {"table": f'"{schema_name(connected.clinic_id)}".patients'}).scalar()
            if waiting:
                break
            time.sleep(0.05)
        assert waiting
        second = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"}).post_json(
            url, PatientCreate.EXAMPLE, headers=headers, status=409)
        holder.rollback()
    thread.join(30)
    assert second.json["code"] == "idempotency_key_reused"
    assert results["first"].status_int == 201
    retry = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"}).post_json(
        url, PatientCreate.EXAMPLE, headers=headers, status=201)
    assert retry.body == results["first"].body and retry.headers["Idempotent-Replayed"] == "true"
    assert _count(world, connected.clinic_id) == 1
