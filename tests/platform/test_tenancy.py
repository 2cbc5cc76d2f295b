"""Each clinic's records live in its own schema; a pooled connection never carries one clinic into another."""

import uuid

import pytest
from psycopg import pq
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError, ProgrammingError
from sqlalchemy.orm import Session

from clinicrecords.db import make_engine
from clinicrecords.settings import read
from clinicrecords.db.tenancy import UNSENT, begin_with, bind_to_clinic, schema_name
from clinicrecords.patients.models import Patient


@pytest.fixture
def one_connection_engine(settings, app):
    engine = make_engine(read(settings), pool_size=1, max_overflow=0)
    yield engine
    engine.dispose()


def _add_patient(engine, clinic_id, family_name):
    with Session(engine) as session, session.begin():
        bind_to_clinic(session, clinic_id)
        session.add(Patient(given_name="Test", family_name=family_name))


def _family_names(engine, clinic_id):
    with Session(engine) as session, session.begin():
        bind_to_clinic(session, clinic_id)
        return sorted(session.scalars(select(Patient.family_name)))


@pytest.mark.commits  # what its own one-connection pool keeps between sessions is the point: a real pooled connection
def test_two_clinics_through_one_pooled_connection_never_see_each_other(world, one_connection_engine):
    clinic_a, clinic_b = world.clinic("A"), world.clinic("B")
    for round_ in range(3):
        _add_patient(one_connection_engine, clinic_a, f"a{round_}")
        _add_patient(one_connection_engine, clinic_b, f"b{round_}")
        assert _family_names(one_connection_engine, clinic_a) == [f"a{i}" for i in range(round_ + 1)]
        assert _family_names(one_connection_engine, clinic_b) == [f"b{i}" for i in range(round_ + 1)]
    assert one_connection_engine.pool.checkedin() == 1


@pytest.mark.commits  # what its own one-connection pool keeps between sessions is the point: a real pooled connection
def test_an_error_mid_request_leaves_nothing_behind_on_the_connection(world, one_connection_engine):
    clinic_a, clinic_b = world.clinic("A"), world.clinic("B")
    _add_patient(one_connection_engine, clinic_a, "only-in-a")
    with pytest.raises(ProgrammingError):
        with Session(one_connection_engine) as session, session.begin():
            bind_to_clinic(session, clinic_a)
            session.add(Patient(given_name="Half", family_name="written"))
            session.flush()
            session.execute(text("SELECT * FROM no_such_table"))
    assert _family_names(one_connection_engine, clinic_b) == []
    assert _family_names(one_connection_engine, clinic_a) == ["only-in-a"]


@pytest.mark.commits  # what its own one-connection pool keeps between sessions is the point: a real pooled connection
def test_a_session_without_a_clinic_cannot_read_any_clinic_table(world, one_connection_engine):
    clinic = world.clinic()
    _add_patient(one_connection_engine, clinic, "hidden")
    with Session(one_connection_engine) as session:
        assert session.execute(text("SHOW search_path")).scalar() == '""'
        with pytest.raises(ProgrammingError):
            session.scalars(select(Patient)).all()


def test_schema_names_come_only_from_uuids():
    clinic_id = uuid.uuid4()
    assert schema_name(clinic_id) == "clinic_" + clinic_id.hex
    for crafted in (str(clinic_id), "x; DROP SCHEMA control", 42, None):
        with pytest.raises(TypeError):
            schema_name(crafted)


def test_binding_survives_a_new_transaction_on_another_connection(world, engine):
    clinic = world.clinic()
    _add_patient(engine, clinic, "kept")
    with Session(engine) as session:
        bind_to_clinic(session, clinic)
        assert session.scalars(select(Patient.family_name)).all() == ["kept"]
        session.commit()
        assert session.scalars(select(Patient.family_name)).all() == ["kept"]


def test_binding_inside_a_begun_transaction_points_it_at_once_and_rebinding_moves_it(world, engine):
    clinic_a, clinic_b = world.clinic("A"), world.clinic("B")
    _add_patient(engine, clinic_a, "in-a")
    _add_patient(engine, clinic_b, "in-b")
    with Session(engine) as session, session.begin():
        session.execute(text("SELECT 1"))  # the transaction has begun before any clinic
        bind_to_clinic(session, clinic_a)
        assert session.scalars(select(Patient.family_name)).all() == ["in-a"]
        bind_to_clinic(session, clinic_b)
        assert session.scalars(select(Patient.family_name)).all() == ["in-b"]
        assert session.execute(text("SHOW search_path")).scalar() == schema_name(clinic_b)


def test_a_connection_in_autocommit_cannot_be_bound_to_a_clinic(world, one_connection_engine):
    # Autocommit has no transaction for a transaction-local search_path; a session-level one must never be set.
    clinic = world.clinic()
    with one_connection_engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        with Session(bind=connection) as session:
            bind_to_clinic(session, clinic)
            with pytest.raises(RuntimeError, match="autocommit"):
                session.scalars(select(Patient)).all()
        assert connection.scalar(text("SHOW search_path")) == '""'


@pytest.mark.commits  # the statement commits apart from a transaction that rolls back: committed for real
def test_a_statement_begun_with_commits_on_its_own_and_the_transaction_is_pointed_at_the_clinic(
        world, one_connection_engine):
    clinic = world.clinic()
    marker = f"begun-with-{uuid.uuid4().hex[:8]}"
    with Session(one_connection_engine) as session:
        bind_to_clinic(session, clinic)
        row = begin_with(session, "SELECT %(marker)s, set_config('clinicrecords.marker', %(marker)s, false)",
                         {"marker": marker})
        assert row == (marker, marker)
        assert session.execute(text("SHOW search_path")).scalar() == schema_name(clinic)
        session.add(Patient(given_name="Rolled", family_name="back"))
        session.flush()
        session.rollback()
        # The session-level setting was made before the BEGIN, in a transaction that committed: it stays.
        assert session.execute(text("SELECT current_setting('clinicrecords.marker')")).scalar() == marker
    assert _family_names(one_connection_engine, clinic) == []


@pytest.mark.commits
def test_a_write_begun_with_survives_the_rollback_of_the_transaction_it_began(world, one_connection_engine):
    clinic = world.clinic()
    key_id = uuid.uuid4()
    count = ("INSERT INTO control.rate_limit_counters (api_key_id, window_start, count) "
             "VALUES (%(key)s, now(), 41) RETURNING count")
    with Session(one_connection_engine) as session:
        bind_to_clinic(session, clinic)
        assert begin_with(session, count, {"key": key_id}) == (41,)
        # The write committed before the BEGIN: the transaction it began has written nothing yet.
        assert session.execute(text("SELECT pg_current_xact_id_if_assigned() IS NULL")).scalar()
        session.add(Patient(given_name="Rolled", family_name="back"))
        session.flush()
        session.rollback()
    with one_connection_engine.begin() as connection:
        assert connection.execute(text("SELECT count FROM control.rate_limit_counters WHERE api_key_id = :key"),
                                  {"key": key_id}).scalar() == 41
        connection.execute(text("DELETE FROM control.rate_limit_counters WHERE api_key_id = :key"), {"key": key_id})
    assert _family_names(one_connection_engine, clinic) == []


@pytest.mark.commits
def test_a_statement_begun_with_draws_no_warning_from_the_server(world, one_connection_engine):
    # A COMMIT ending a multi-statement message's implicit transaction is answered "WARNING: there is no
    # transaction in progress", which the server also writes to its log: once per request, it filled the log.
    clinic = world.clinic()
    with Session(one_connection_engine) as session:
        driver = session.connection().connection.driver_connection
        session.rollback()
        notices = []
        driver.add_notice_handler(notices.append)
        try:
            for value in (1, 2):  # the message that prepares the statement, then the one that executes it
                bind_to_clinic(session, clinic)
                assert begin_with(session, "SELECT CAST(%(value)s AS integer)", {"value": value},
                                  prepared_as="test_quiet") == (value,)
                session.rollback()
        finally:
            driver.remove_notice_handler(notices.append)
    assert [(notice.severity, notice.message_primary) for notice in notices] == []


@pytest.mark.commits
def test_a_failing_statement_begun_with_begins_nothing_and_leaves_the_connection_usable(
        world, one_connection_engine):
    clinic = world.clinic()
    _add_patient(one_connection_engine, clinic, "kept")
    with Session(one_connection_engine) as session:
        bind_to_clinic(session, clinic)
        with pytest.raises(DBAPIError):
            begin_with(session, "SELECT 1 / %(zero)s", {"zero": 0})
        driver = session.connection().connection.driver_connection
        assert driver.pgconn.transaction_status == pq.TransactionStatus.IDLE  # not a failed block left open
        session.rollback()
    assert _family_names(one_connection_engine, clinic) == ["kept"]


def test_begin_with_a_begun_session_is_refused(world, engine):
    with Session(engine) as session:
        bind_to_clinic(session, world.clinic())
        session.execute(text("SELECT 1"))
        with pytest.raises(RuntimeError):
            begin_with(session, "SELECT 1", {})


def test_begin_with_a_session_bound_to_no_clinic_is_refused(world, engine):
    with Session(engine) as session:
        with pytest.raises(RuntimeError):
            begin_with(session, "SELECT 1", {})
        assert not session.in_transaction()


def test_begin_with_in_the_suites_joined_transaction_sends_nothing(world, engine):
    # The suite's transaction makes each session's a savepoint: a statement that must commit apart cannot
    # precede it, so it is left to the caller (the rate-limit counter then uses a connection of its own).
    with Session(engine) as session:
        bind_to_clinic(session, world.clinic())
        assert begin_with(session, "SELECT 1 / 0", {}) is UNSENT
        assert not session.in_transaction()


@pytest.mark.commits  # its own one-connection pool: the same connection each time, as a pooled one is
def test_a_statement_begun_with_is_prepared_once_per_connection(world, one_connection_engine):
    clinic = world.clinic()
    for value in (1, 2, 3):  # a second PREPARE of the name on the connection would fail
        with Session(one_connection_engine) as session:
            bind_to_clinic(session, clinic)
            assert begin_with(session, "SELECT CAST(%(value)s AS integer) * 2", {"value": value},
                              prepared_as="test_doubled") == (value * 2,)
            assert session.execute(text("SELECT count(*) FROM pg_prepared_statements "
                                        "WHERE name = 'test_doubled'")).scalar() == 1


@pytest.mark.commits
def test_a_statement_begun_with_is_prepared_again_when_the_connection_lost_it(world, one_connection_engine):
    # psycopg sends DEALLOCATE ALL when a transaction that ran its prepared statements rolls back.
    clinic = world.clinic()
    for value in (1, 2):
        with Session(one_connection_engine) as session:
            bind_to_clinic(session, clinic)
            assert begin_with(session, "SELECT CAST(%(value)s AS integer) + 1", {"value": value},
                              prepared_as="test_plus_one") == (value + 1,)
            session.execute(text("DEALLOCATE ALL"))


@pytest.mark.commits
def test_a_statement_begun_with_that_failed_after_its_prepare_is_not_prepared_twice(world, one_connection_engine):
    clinic = world.clinic()
    query = "SELECT 10 / CAST(%(divisor)s AS integer)"
    with Session(one_connection_engine) as session:
        bind_to_clinic(session, clinic)
        with pytest.raises(DBAPIError):
            begin_with(session, query, {"divisor": 0}, prepared_as="test_divided")
        session.rollback()
    for divisor in (2, 5):
        with Session(one_connection_engine) as session:
            bind_to_clinic(session, clinic)
            assert begin_with(session, query, {"divisor": divisor}, prepared_as="test_divided") == (10 // divisor,)


def test_the_restore_lock_a_request_tries_is_the_one_its_clinic_s_restore_holds():
    """The request reads the lock's key from the schema's digits; a restore from the clinic's uuid: one key."""
    from clinicrecords.db.tenancy import _guard_statement, clinic_lock_key

    clinics = [uuid.uuid4() for _ in range(200)] + [uuid.UUID(int=0), uuid.UUID(int=2 ** 128 - 1),
                                                    uuid.UUID("80000000-0000-4000-8000-000000000000")]
    for clinic_id in clinics:
        expected = int.from_bytes(clinic_id.bytes[:8], "big", signed=True)
        assert clinic_lock_key(clinic_id) == expected
        assert _guard_statement(schema_name(clinic_id)) == f"SELECT pg_try_advisory_xact_lock_shared({expected})"
