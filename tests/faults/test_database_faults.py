"""Database faults answer 503 problem+json with Retry-After, never a 500 with internals."""

import uuid

import pytest
from sqlalchemy import text
from webtest import TestApp

from clinicrecords.db.tenancy import schema_name
from clinicrecords.patients.schemas import PatientCreate


def _assert_clean_503(response):
    assert response.status_int == 503
    assert response.content_type == "application/problem+json"
    assert response.json["code"] == "service_unavailable"
    assert response.headers["Retry-After"]
    assert "psycopg" not in response.text and "SELECT" not in response.text


def test_a_statement_timeout_becomes_503(make_app, engine, connected):
    app = TestApp(make_app(**{"database.statement_timeout_ms": "300"}))
    with engine.connect() as blocker:
        # Hold the key table so the next key lookup waits past the statement timeout.
        blocker.execute(text("LOCK TABLE control.api_keys IN ACCESS EXCLUSIVE MODE"))
        response = app.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers, status="*")
        blocker.rollback()
    _assert_clean_503(response)
    assert app.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers).status_int == 200


@pytest.fixture
def disk_full_on_patients(engine, connected):
    schema = schema_name(connected.clinic_id)
    with engine.begin() as connection:
        connection.execute(text(f"SET LOCAL search_path = {schema}"))
        connection.execute(text(
            "CREATE FUNCTION fault_disk_full() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$"))
        connection.execute(text("CREATE TRIGGER fault_disk_full BEFORE INSERT ON patients "
                                "FOR EACH ROW EXECUTE FUNCTION fault_disk_full()"))
    yield
    with engine.begin() as connection:
        connection.execute(text(f"SET LOCAL search_path = {schema}"))
        connection.execute(text("DROP TRIGGER fault_disk_full ON patients"))
        connection.execute(text("DROP FUNCTION fault_disk_full()"))


def test_a_disk_full_error_becomes_503_and_leaves_nothing_half_written(testapp, connected, disk_full_on_patients):
    response = testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", PatientCreate.EXAMPLE,
                                 headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())}, status="*")
    _assert_clean_503(response)
    assert testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers).json["data"] == []


def test_no_free_pooled_connection_becomes_503(make_app, connected):
    """Every pooled connection held elsewhere: the request waits pool_timeout, then the database has not
    answered in time (503), not a 500."""
    wsgi_app = make_app(**{"database.pool_size": "1", "database.max_overflow": "0", "database.pool_timeout": "0.5"})
    app = TestApp(wsgi_app)
    with wsgi_app.registry["db.engine"].connect():  # the pool's only connection
        response = app.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers, status="*")
    _assert_clean_503(response)


def test_a_pool_of_one_serves_reads_writes_and_refusals(make_app, connected):
    """A request never holds one pooled connection while it waits for a second (the key and its rate limit
    are read and counted first; an idempotent refusal is stored after the transaction), so a pool of one
    is slow under load but never stuck."""
    app = TestApp(make_app(**{"database.pool_size": "1", "database.max_overflow": "0",
                              "database.pool_timeout": "2"}), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    patients = f"/v1/clinics/{connected.clinic_id}/patients"
    app.get(patients, headers=connected.headers, status=200)
    write = {**connected.headers, "Idempotency-Key": str(uuid.uuid4())}
    created = app.post_json(patients, PatientCreate.EXAMPLE, headers=write, status=201)
    assert app.post_json(patients, PatientCreate.EXAMPLE, headers=write, status=201).body == created.body
    refusal = {**connected.headers, "Idempotency-Key": str(uuid.uuid4())}
    first = app.post_json(patients, {"given_name": ""}, headers=refusal, status=400)
    assert app.post_json(patients, {"given_name": ""}, headers=refusal, status=400).headers[
        "Idempotent-Replayed"] == "true"
    assert first.json["code"] == "invalid_request"
    app.get("/v1/me", headers=connected.headers, status=200)
