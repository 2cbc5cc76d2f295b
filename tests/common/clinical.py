"""Helpers for the clinical-record tests: sandbox keys, patients written straight into a clinic, the CLI."""

import contextlib
import datetime
import uuid

from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.patients.models import Patient
from tests.common.cli import admin  # noqa: F401  (re-exported: this context's tests import them from here)


def headers(key, **extra):
    return {"Authorization": f"Bearer {key}", **extra}


def idem(key):
    return headers(key, **{"Idempotency-Key": str(uuid.uuid4())})


def sandbox(world):
    """(sandbox clinic id, test key) of a fresh workspace."""
    workspace_id, sandbox_id = world.workspace()
    return sandbox_id, world.key(workspace_id=workspace_id, mode="test")


@contextlib.contextmanager
def clinic_db(world, clinic_id):
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        yield db


def add_patient(world, clinic_id, restricted=False, family_name="Tester", birth_date=datetime.date(1990, 1, 1)):
    with clinic_db(world, clinic_id) as db:
        patient = Patient(id=uuid.uuid4(), given_name="Pat", family_name=family_name, birth_date=birth_date,
                          restricted=restricted)
        db.add(patient)
        db.flush()
        return patient.id


def restrict(world, clinic_id, patient_id):
    with clinic_db(world, clinic_id) as db:
        db.get(Patient, patient_id).restricted = True


