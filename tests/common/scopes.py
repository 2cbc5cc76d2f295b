"""Services built without a request: a plain object stands in for the clinic scope (IClinicScope)."""

import contextlib
import uuid
from types import SimpleNamespace

from zope.interface import implementer

from clinicrecords.api.pagination import ListCursors
from clinicrecords.clinics.interfaces import IClinicContext
from clinicrecords.clinics.services import open_clinic
from clinicrecords.patients.services import PatientService, set_restricted


@contextlib.contextmanager
def plain_scope(world, clinic_id, identity=None, granted=frozenset()):
    """A SimpleNamespace scope over a real session bound to a real clinic, committed at the end (as the CLI)."""
    with world.request() as request:
        clinic = open_clinic(request.db, clinic_id)
        yield SimpleNamespace(identity=identity, clinic=clinic, granted=frozenset(granted), db=request.db)


def scope_over(db, clinic, workspace_id=None, owner_id=None, granted=()):
    """What a service reads of an `IClinicScope`, as plain attributes, over a session the caller holds."""
    identity = SimpleNamespace(workspace_id=workspace_id, owner_id=owner_id or workspace_id)
    return SimpleNamespace(db=db, clinic=clinic, identity=identity, granted=frozenset(granted))


@contextlib.contextmanager
def clinic_session(world, clinic_id):
    """(db, clinic): a real session bound to the clinic, committed at the end as a staff command is."""
    with world.request() as request:
        yield request.db, open_clinic(request.db, clinic_id)


def plain_cursors(registry, scope="/v1/unit-test|public"):
    """The real list cursors, signed for one list and no caller."""
    return ListCursors(registry["api.cursor_signer"], scope)


def plain_identity(**fields):
    """The attributes of a calling key that services read (clinicrecords.access.identity.Identity)."""
    return SimpleNamespace(**{"id": uuid.uuid4(), "owner_id": uuid.uuid4(), "workspace_id": None, "clinic_id": None,
                              "key_id": "test_key", **fields})


def cursors(world, scope="a list|an owner"):
    return ListCursors(world.registry["api.cursor_signer"], scope)


@implementer(IClinicContext)
class ClinicNode:
    """A traversal node holding a clinic scope, as the clinic resource does: what service factories get as
    their context (or an ancestor of it)."""

    __parent__ = None
    __name__ = ""

    def __init__(self, scope):
        self.scope = scope


def a_patient(db, restricted=False, family_name="Quill"):
    """A patient of the scope's clinic, written through the patients context's own services; their id."""
    patient = PatientService(db).create({"given_name": "Ada", "family_name": family_name})
    if restricted:
        set_restricted(db, patient.id, True)
    return patient.id
