"""Round trips to PostgreSQL per request, counted on the wire, and the audit row sent with the COMMIT.

Committed for real: the test suite's rolled-back transaction turns each COMMIT into a savepoint's release
and shares one connection, which is not the path production takes.
"""

import datetime
import statistics
import uuid

import pytest
import transaction
import webtest
from psycopg import errors, sql
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError

from clinicrecords.db.request_transaction import for_request, send_with_commit
from clinicrecords.db.round_trips import RoundTrips
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.patients.models import Patient
from clinicrecords.patients.schemas import PatientCreate
from tests.common.cli import admin
from tests.common.clinical import add_patient
from tests.common.world import World

# `app` builds and migrates the suite's database: these tests build apps of their own on it, and this file may
# be the first a test process runs.
pytestmark = [pytest.mark.commits, pytest.mark.usefixtures("app")]

# A warm key: the rate-limit counter, which also checks the cached key's reach version (committed on its own), sent
# in one message with the BEGIN of the request's transaction; the read; the audit row sent with COMMIT.
GET_ONE = 3
# The same counter with the BEGIN; the idempotency lock and lookup in one call; the patient INSERT, which reads
# back what the server set (no SELECT after it); then the stored answer and the audit row sent with COMMIT.
POST_WITH_IDEMPOTENCY_KEY = 4
# A send for review (an allergy): the counter with the BEGIN; the claim, the patient check, the submission's
# INSERT, which also asks whether automatic acceptance is on for the sender, then the stored answer
# and the audit row sent with COMMIT.
SEND_WITH_IDEMPOTENCY_KEY = 5
# A refused one: the counter with the BEGIN; the claim and the ROLLBACK; then what it owes apart (the refusal to
# replay and the audit entry) in one transaction of its own.
REFUSED_POST_WITH_IDEMPOTENCY_KEY = 7


@pytest.fixture
def counted(make_app):
    app = make_app(**{"database.pool_max_uses": "0"})
    world = World(app.registry)
    connected = world.connected()
    patient_id = add_patient(world, connected.clinic_id)
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    with RoundTrips(app.registry["db.engine"]) as trips:
        yield client, trips, connected, patient_id


def per_request(client, trips, call, requests=7):
    """The count most requests take: an occasional statement (a key's last use, written at most once a
    minute) adds a round trip to one request, not to the path."""
    for _ in range(6):  # outside the count: the pool's connection, psycopg preparing statements on their 6th run
        call()
    counts = []
    for _ in range(requests):
        trips.reset()
        call()
        counts.append(trips.count)
    return statistics.mode(counts)


def test_get_one_takes_three_round_trips_and_its_audit_row_commits(counted):
    client, trips, connected, patient_id = counted
    url = f"/v1/clinics/{connected.clinic_id}/patients/{patient_id}"
    assert per_request(client, trips, lambda: client.get(url, headers=connected.headers)) == GET_ONE
    status, result, err = admin("audit", "list", "--clinic", str(connected.clinic_id))
    assert status == 0, err
    reads = [entry for entry in result["data"] if entry["method"] == "GET"]
    assert len(reads) == 13 and {tuple(entry["record_ids"]) for entry in reads} == {(str(patient_id),)}


def test_post_with_an_idempotency_key_takes_four_round_trips_and_its_answer_is_stored(counted):
    client, trips, connected, _ = counted
    url, keys = f"/v1/clinics/{connected.clinic_id}/patients", []

    def post():
        keys.append(str(uuid.uuid4()))
        return client.post_json(url, PatientCreate.EXAMPLE, status=201,
                                headers={**connected.headers, "Idempotency-Key": keys[-1]})

    assert per_request(client, trips, post) == POST_WITH_IDEMPOTENCY_KEY
    first = post()
    replayed = client.post_json(url, PatientCreate.EXAMPLE, status=201,
                                headers={**connected.headers, "Idempotency-Key": keys[-1]})
    assert replayed.headers["Idempotent-Replayed"] == "true" and replayed.json["data"]["id"] == first.json["data"]["id"]


def test_a_send_for_review_takes_five_round_trips_and_is_pending(counted):
    client, trips, connected, patient_id = counted
    url, sent = f"/v1/clinics/{connected.clinic_id}/allergies", []

    def send():
        body = {"patient_id": str(patient_id), "substance": {"text": f"Pollen {len(sent)}"},
                "clinical_status": "active", "criticality": "low"}
        sent.append(client.post_json(url, body, status=202,
                                     headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())}))

    assert per_request(client, trips, send) == SEND_WITH_IDEMPOTENCY_KEY
    assert {answer.json["data"]["review_status"] for answer in sent} == {"pending"}


def test_a_refused_post_owes_its_stored_answer_and_its_audit_entry_in_one_transaction_apart(counted):
    client, trips, connected, _ = counted
    url, keys = f"/v1/clinics/{connected.clinic_id}/patients", []

    def refused():
        keys.append(str(uuid.uuid4()))
        return client.post_json(url, {"given_name": ""}, status=400,
                                headers={**connected.headers, "Idempotency-Key": keys[-1]})

    assert per_request(client, trips, refused) == REFUSED_POST_WITH_IDEMPOTENCY_KEY
    first = refused()
    replayed = client.post_json(url, {"given_name": ""}, status=400,
                                headers={**connected.headers, "Idempotency-Key": keys[-1]})
    assert replayed.headers["Idempotent-Replayed"] == "true" and replayed.body == first.body
    status, result, err = admin("audit", "list", "--clinic", str(connected.clinic_id))
    assert status == 0, err
    assert [entry["status"] for entry in result["data"] if entry["method"] == "POST"] == [400] * 15


def _request_session_with_a_patient(make_app, family_name):
    """A request's session in a transaction of its own, bound to a new clinic, with a new patient added (not
    flushed). Returns (world, clinic id, the transaction manager, the session, the patient)."""
    registry = make_app().registry
    world = World(registry)
    clinic_id = world.clinic()
    manager = transaction.TransactionManager(explicit=True)
    manager.begin()
    session = for_request(registry["db.session_factory"], manager)
    bind_to_clinic(session, clinic_id)
    patient = Patient(id=uuid.uuid4(), given_name="Pat", family_name=family_name, birth_date=datetime.date(1990, 1, 1))
    session.add(patient)
    return world, clinic_id, manager, session, patient


def test_a_statement_sent_with_commit_that_fails_takes_the_whole_transaction_with_it(make_app):
    world, clinic_id, manager, session, patient = _request_session_with_a_patient(make_app, "Written")
    session.flush()
    send_with_commit(session, sql.SQL("SELECT 1 / {}").format(sql.Placeholder("zero")), {"zero": 0})
    with pytest.raises(DBAPIError) as failed:
        manager.commit()
    assert isinstance(failed.value.orig, errors.DivisionByZero)
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        assert db.scalar(select(Patient).where(Patient.id == patient.id)) is None


def test_a_statement_sent_with_commit_is_told_when_that_commit_succeeded_and_only_then(make_app):
    told = []
    _, _, manager, session, _ = _request_session_with_a_patient(make_app, "Told")
    send_with_commit(session, "SELECT %(one)s", {"one": 1}, lambda: told.append("committed"))
    # The session tells it: nothing waits for the transaction's after-commit hooks, whose end closes every
    # resource once more.
    assert list(manager.get().getAfterCommitHooks()) == []
    manager.commit()
    assert told == ["committed"]

    _, _, manager, session, _ = _request_session_with_a_patient(make_app, "Untold")
    send_with_commit(session, sql.SQL("SELECT 1 / {}").format(sql.Placeholder("zero")), {"zero": 0},
                     lambda: told.append("failed"))
    with pytest.raises(DBAPIError):
        manager.commit()
    manager.abort()
    assert told == ["committed"]


def test_a_serialization_failure_or_deadlock_is_retried_and_other_errors_are_not(make_app):
    registry = make_app().registry
    manager = transaction.TransactionManager(explicit=True)
    manager.begin()
    session = for_request(registry["db.session_factory"], manager)
    session.execute(select(1))  # begins: the session joins the transaction
    try:
        for sqlstate, retried in (("40001", True), ("40P01", True), ("22012", False)):
            error = DBAPIError("COMMIT", {}, errors.lookup(sqlstate)())
            assert manager._retryable(type(error), error) is retried
    finally:
        manager.abort()


def test_an_object_added_before_any_statement_is_committed_with_the_transaction(make_app):
    # No flush, no statement: the session has begun no transaction of its own when the manager commits.
    world, clinic_id, manager, _, patient = _request_session_with_a_patient(make_app, "Added")
    manager.commit()
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        assert db.scalar(select(Patient.family_name).where(Patient.id == patient.id)) == "Added"
