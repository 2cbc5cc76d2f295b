"""Prebuilt reads on the driver keep the tenancy rule and answer like any SQLAlchemy statement."""

import uuid

import pytest
from sqlalchemy import Numeric, bindparam, cast, insert, literal, select
from sqlalchemy.exc import DataError, DBAPIError
from sqlalchemy.types import Uuid

from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.patients.models import Patient
from clinicrecords.review.models import Submission
from tests.common.clinical import add_patient

_PATIENT = Prebuilt(select(Patient.id, Patient.family_name).where(
    Patient.id == bindparam("patient_id", type_=Uuid())))


def test_a_tenant_read_finds_a_row_only_in_the_clinic_its_session_is_bound_to(world):
    clinic_a, clinic_b = world.clinic("A"), world.clinic("B")
    patient_id = add_patient(world, clinic_a, family_name="Inclinica")
    with world.db() as db:
        bind_to_clinic(db, clinic_a)
        row = _PATIENT.first(db, patient_id=patient_id)
        assert (row.id, row.family_name) == (patient_id, "Inclinica")
        assert _PATIENT.all(db, patient_id=patient_id) == [row]
    with world.db() as db:
        bind_to_clinic(db, clinic_b)
        assert _PATIENT.first(db, patient_id=patient_id) is None
        assert _PATIENT.all(db, patient_id=patient_id) == []


def test_a_tenant_read_on_a_session_bound_to_no_clinic_is_refused(world):
    with world.db() as db, pytest.raises(RuntimeError, match="bound to a clinic"):
        _PATIENT.first(db, patient_id=uuid.uuid4())


def test_a_control_read_needs_no_clinic(world):
    read = Prebuilt(select(literal(1).label("one")), tenant=False)
    with world.db() as db:
        assert read.first(db).one == 1


def test_a_value_that_needs_sqlalchemys_processing_is_refused_when_the_statement_is_built():
    # Numeric(asdecimal=False) converts the driver's Decimal to float: the driver alone would answer otherwise.
    with pytest.raises(TypeError, match="need SQLAlchemy's processing"):
        Prebuilt(select(cast(literal(1), Numeric(asdecimal=False)).label("amount")), tenant=False)


def test_a_driver_error_is_raised_as_sqlalchemys(world):
    read = Prebuilt(select(cast(bindparam("text"), Uuid()).label("id")), tenant=False)
    with world.db() as db, pytest.raises(DataError) as raised:
        read.first(db, text="not a uuid")
    assert isinstance(raised.value, DBAPIError) and raised.value.orig.sqlstate == "22P02"


def test_a_json_parameter_is_refused_unless_named_to_be_wrapped_for_the_driver():
    statement = insert(Submission.__table__).returning(Submission.__table__.c.submitted_at)
    with pytest.raises(TypeError, match="payload"):
        Prebuilt(statement, column_keys=["id", "payload"])
    assert Prebuilt(statement, column_keys=["id", "payload"], json=["payload"]).row._fields == ("submitted_at",)
