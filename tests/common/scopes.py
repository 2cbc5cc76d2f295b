"""Services built without a request: a plain object in place of the clinic scope, over a real session."""

import contextlib
from functools import partial
from types import SimpleNamespace

from clinicrecords.api.pagination import keyset_page
from clinicrecords.clinics.services import open_clinic


def plain_scope(db, clinic, workspace_id=None, owner_id=None, granted=()):
    """What a service reads of an `IClinicScope`, as plain attributes."""
    identity = SimpleNamespace(workspace_id=workspace_id, owner_id=owner_id or workspace_id)
    return SimpleNamespace(db=db, clinic=clinic, identity=identity, granted=frozenset(granted))


def plain_pager(registry, path="/v1/unit-test"):
    """The real keyset pagination, signed for one list and no caller."""
    return partial(keyset_page, SimpleNamespace(registry=registry, path=path, identity=None))


@contextlib.contextmanager
def clinic_session(world, clinic_id):
    """(db, clinic): a real session bound to the clinic, committed at the end as a staff command is."""
    with world.request() as request:
        yield request.db, open_clinic(request.db, clinic_id)
