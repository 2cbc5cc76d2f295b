"""A clinic's search_path lives and dies with its transaction, through PgBouncer in transaction mode: on the
pool of one server connection (`clinicrecords_one`), every client connection's next transaction meets whatever
the last one left on the server. A setting made for the session (`SET search_path`, `set_config(..., false)`)
would stay there and point the next client's statements at that clinic; the transaction-local one does not."""

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import ProgrammingError
from sqlalchemy.orm import Session

from clinicrecords.db import make_engine
from clinicrecords.db.tenancy import bind_to_clinic, schema_name
from clinicrecords.patients.models import Patient
from clinicrecords.settings import read
from tests.pooling.conftest import pooled_settings


@pytest.fixture
def one_server_connection(settings, pgbouncer):
    engine = make_engine(read(pooled_settings(settings, pgbouncer, database_url=pgbouncer.url("clinicrecords_one"))))
    yield engine
    engine.dispose()


def _patient(world, clinic_id):
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        patient = Patient(given_name="Kept", family_name="Behind")
        db.add(patient)
        db.flush()
        return patient.id


def _unbound_transaction_sees_no_clinic(connection, server_pid):
    with Session(bind=connection) as session:
        assert session.scalar(text("SELECT pg_backend_pid()")) == server_pid  # the same server connection
        assert session.scalar(text("SHOW search_path")) == '""'
        with pytest.raises(ProgrammingError, match="does not exist"):
            session.scalars(select(Patient.given_name)).all()


def test_the_next_client_on_the_server_connection_meets_no_clinic(world, one_server_connection):
    clinic = world.clinic()
    patient_id = _patient(world, clinic)
    with one_server_connection.connect() as first, one_server_connection.connect() as second:
        with Session(bind=first) as session:
            bind_to_clinic(session, clinic)
            assert session.scalar(select(Patient.given_name).where(Patient.id == patient_id)) == "Kept"
            assert session.scalar(text("SHOW search_path")) == schema_name(clinic)
            server_pid = session.scalar(text("SELECT pg_backend_pid()"))
            session.commit()
        _unbound_transaction_sees_no_clinic(second, server_pid)
        _unbound_transaction_sees_no_clinic(first, server_pid)  # nor the same client's next transaction


def test_a_failed_transaction_leaves_no_clinic_behind_either(world, one_server_connection):
    clinic = world.clinic()
    with one_server_connection.connect() as first, one_server_connection.connect() as second:
        with Session(bind=first) as session:
            bind_to_clinic(session, clinic)
            server_pid = session.scalar(text("SELECT pg_backend_pid()"))
            with pytest.raises(ProgrammingError):
                session.execute(text("SELECT * FROM no_such_table"))
            session.rollback()
        _unbound_transaction_sees_no_clinic(second, server_pid)
