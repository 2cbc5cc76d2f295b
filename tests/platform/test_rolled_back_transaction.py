"""The tests' rolled-back transaction (clinicrecords.db.joined): everything joins it, nothing outlives it, and a
clinic's schema map stays with the session that set it."""

import datetime

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import ProgrammingError
from sqlalchemy.orm import Session

from clinicrecords.clinics.models import Clinic
from clinicrecords.db import autocommit_session
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.patients.models import Patient
from tests.common.transaction import OuterTransaction


@pytest.fixture
def outer(engine):
    with OuterTransaction(engine) as outer, outer.joined():
        yield outer


def _clinic_exists(engine, clinic_id):
    with engine.connect() as connection:
        return connection.scalar(select(Clinic.id).where(Clinic.id == clinic_id)) is not None


def test_what_a_test_wrote_is_gone_when_it_ends(engine, world):
    with OuterTransaction(engine) as outer, outer.joined():
        clinic_id = world.clinic()
        assert _clinic_exists(engine, clinic_id)  # another connection of the engine sees it meanwhile
    assert not _clinic_exists(engine, clinic_id)


def test_a_session_without_a_clinic_carries_no_earlier_sessions_map(engine, world, outer):
    clinic_id = world.clinic()
    with Session(engine) as session, session.begin():
        bind_to_clinic(session, clinic_id)
        session.add(Patient(given_name="Test", family_name="hidden"))
    with Session(engine) as session:
        with pytest.raises(ProgrammingError):
            session.scalars(select(Patient.family_name)).all()


def test_a_refused_transaction_rolls_back_alone_and_autocommit_keeps_its_write(engine, world, outer):
    clinic_id = world.clinic()
    with pytest.raises(ProgrammingError):
        with engine.begin() as connection:
            connection.execute(text("UPDATE control.clinics SET name = 'renamed' WHERE id = :id"), {"id": clinic_id})
            connection.execute(text("SELECT * FROM no_such_table"))
    with engine.connect() as connection:
        connection.execute(text("UPDATE control.clinics SET name = 'discarded' WHERE id = :id"), {"id": clinic_id})
    with autocommit_session(engine) as db:
        db.execute(text("UPDATE control.clinics SET name = 'kept' WHERE id = :id"), {"id": clinic_id})
    with engine.connect() as connection:
        assert connection.scalar(select(Clinic.name).where(Clinic.id == clinic_id)) == "kept"


def test_now_is_each_joined_transactions_own_start(engine, outer):
    def now():
        with engine.connect() as connection:
            return connection.scalar(text("SELECT now()"))

    first, second = now(), now()
    assert first < second
    assert abs(datetime.datetime.now(datetime.UTC) - second) < datetime.timedelta(seconds=5)


def test_a_connection_from_another_thread_is_refused_while_joined(engine, outer):
    import threading  # only this test starts a thread

    refused = []

    def connect():
        try:
            engine.connect()
        except RuntimeError as exc:
            refused.append(str(exc))

    thread = threading.Thread(target=connect)
    thread.start()
    thread.join(10)
    assert refused and "pytest.mark.commits" in refused[0]
