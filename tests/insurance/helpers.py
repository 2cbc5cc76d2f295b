"""Small helpers for the insurance and dispensing tests: sandbox callers, staff actions, the CLI."""

import contextlib
import uuid

from clinicrecords.clinics.services import open_clinic
from tests.common.cli import admin  # noqa: F401  (re-exported: this context's tests import them from here)


class Caller:
    def __init__(self, clinic_id, workspace_id, key):
        self.clinic_id = clinic_id
        self.workspace_id = workspace_id
        self.key = key

    @property
    def headers(self):
        return {"Authorization": f"Bearer {self.key}"}

    def url(self, path):
        return f"/v1/clinics/{self.clinic_id}/{path}"

    def write_headers(self, key=None):
        return {**self.headers, "Idempotency-Key": key or str(uuid.uuid4())}


def sandbox_caller(world, **key_kwargs):
    """A fresh workspace's test key and its seeded sandbox (insurer Northwind linked, patients 1-2 enrolled)."""
    workspace_id, sandbox_id = world.workspace()
    return Caller(sandbox_id, workspace_id, world.key(workspace_id=workspace_id, mode="test", **key_kwargs))


@contextlib.contextmanager
def staff(world, clinic_id):
    """(db, clinic) bound to the clinic, committed at the end, as a staff command runs."""
    with world.request() as request:
        yield request.db, open_clinic(request.db, clinic_id)


def restrict(world, clinic_id, patient_id):
    from clinicrecords.patients.models import Patient

    with staff(world, clinic_id) as (db, _):
        db.get(Patient, patient_id).restricted = True
