"""The cross-clinic read of the PgBouncer report, as a probe: two pooled connections through the pooler, one
mapped to clinic A and one to clinic B the way a request maps its session (`bind_to_clinic`), each reading a
patient by id many times, interleaved. psycopg prepares a statement after a few executions under a name
unique only per client connection (`_pg3_0`); through a transaction pooler another client's request can run
it, in another clinic's schema. With `database.pooled = true` nothing is prepared, and every read answers
from its own clinic only."""

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from clinicrecords.db import make_engine
from clinicrecords.settings import read
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.patients.models import Patient
from tests.pooling.conftest import pooled_settings

READS = 12  # psycopg prepares on the sixth execution of the same statement


def _patient(world, clinic_id, name):
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        patient = Patient(given_name=name, family_name="Probe")
        db.add(patient)
        db.flush()
        return patient.id


def _read_interleaved(engine, clinics):
    """Each (clinic, own patient, other clinic's patient) reads its own patient and the other's, in turn,
    on a client connection of its own. Returns (what each read found, driver errors)."""
    sessions = []
    for clinic_id, _, _ in clinics:
        # Each client connection stays checked out (psycopg counts executions per connection, and the pool's
        # reset forgets them); each read is a transaction of its own at the pooler, pointed at its clinic as a
        # request's is (a connection in autocommit has no transaction to carry the clinic's search_path).
        session = Session(bind=engine.connect())
        bind_to_clinic(session, clinic_id)
        sessions.append(session)
    found, errors = [], []
    try:
        for _ in range(READS):
            for session, (clinic_id, own, other) in zip(sessions, clinics):
                for wanted in (own, other):
                    try:
                        name = session.scalar(select(Patient.given_name).where(Patient.id == wanted))
                        session.commit()
                        found.append((clinic_id, wanted, name))
                    except DBAPIError as error:
                        errors.append(str(error.orig))
                        session.rollback()
    finally:
        for session in sessions:
            session.close()
            session.bind.close()
    return found, errors


def _clinics(world):
    clinic_a, clinic_b = world.clinic("Probe A"), world.clinic("Probe B")
    patient_a, patient_b = _patient(world, clinic_a, "Alpha"), _patient(world, clinic_b, "Bravo")
    return [(clinic_a, patient_a, patient_b), (clinic_b, patient_b, patient_a)], {patient_a: "Alpha",
                                                                                 patient_b: "Bravo"}


def test_no_read_answers_from_another_clinic_through_the_pooler(settings, pgbouncer, world):
    clinics, names = _clinics(world)
    own = {clinic_id: patient for clinic_id, patient, _ in clinics}
    for database in ("clinicrecords_one", "clinicrecords_test"):
        engine = make_engine(read(pooled_settings(settings, pgbouncer, database_url=pgbouncer.url(database))))
        try:
            found, errors = _read_interleaved(engine, clinics)
        finally:
            engine.dispose()
        assert errors == []
        assert len(found) == READS * 4
        for clinic_id, wanted, name in found:
            # its own patient by name; the other clinic's id finds nothing, exactly like a random id
            assert name == (names[wanted] if wanted == own[clinic_id] else None), (database, clinic_id, name)


def test_the_probe_sees_the_breach_when_statements_are_prepared(settings, pgbouncer, world):
    """The same probe with psycopg's default preparing, on one shared server connection: it must find what
    the report found (a read from the other clinic, or a clash of statement names), or it proves nothing."""
    clinics, names = _clinics(world)
    own = {clinic_id: patient for clinic_id, patient, _ in clinics}
    engine = make_engine(read(pooled_settings(settings, pgbouncer, database_url=pgbouncer.url("clinicrecords_one"))),
                         connect_args={"prepare_threshold": 5, "application_name": "probe"})
    try:
        found, errors = _read_interleaved(engine, clinics)
    finally:
        engine.dispose()
    wrong = [(clinic_id, name) for clinic_id, wanted, name in found
             if name != (names[wanted] if wanted == own[clinic_id] else None)]
    assert wrong or any("_pg3_" in error for error in errors), (found, errors)

