"""The helpers' one rule of their own: resetting a sandbox. Every other helper runs an operator command's
handler (`clinicrecords/<context>/cli.py`), so the sandbox sees exactly what clinic staff cause."""

import argparse

from sqlalchemy import delete, insert, select
from sqlalchemy.schema import DropSchema

from clinicrecords.api.problems import Problem
from clinicrecords.clinics.models import Clinic
from clinicrecords.db.meta import TenantBase
from clinicrecords.db.migrations import create_tenant_schema
from clinicrecords.db.tenancy import bind_to_clinic, schema_name
from clinicrecords.errors import InvalidInput
from clinicrecords.events.models import EventCounter
from clinicrecords.listings.models import ListingItem
from clinicrecords.sandbox import seed_sandbox


def run_staff_command(request, clinic, handler, **arguments):
    """The operator command's handler on this sandbox; its refusals become 409 test_helper_refused."""
    try:
        return handler(request, argparse.Namespace(clinic=clinic.id, **arguments))
    except InvalidInput as exc:
        raise Problem("test_helper_refused", str(exc)) from None


def reset_sandbox(request, clinic):
    """Drop the sandbox's schema and build it again from the seed, in the request's one transaction.

    The change feed's counter survives, so seq keeps growing and a partner's `after_seq` stays valid (the
    feed itself restarts empty). The listing projection's rows of this sandbox are replaced by the seed's.
    """
    if clinic.sandbox_of_workspace_id is None:  # never a real clinic, whatever the caller checked
        raise InvalidInput("only a sandbox clinic can be reset")
    db = request.db
    db.flush()
    bind_to_clinic(db, clinic.id)
    last_seq = db.execute(select(EventCounter.value)).scalar() or 0
    for instance in list(db.identity_map.values()):
        if isinstance(instance, TenantBase):
            db.expunge(instance)
    connection = db.connection()
    connection.execute(DropSchema(schema_name(clinic.id), cascade=True))
    clinic = db.get(Clinic, clinic.id)
    clinic.schema_revision = create_tenant_schema(connection, clinic.id)
    bind_to_clinic(db, clinic.id)
    if last_seq:  # before seeding: events the seed emits follow the old ones
        db.execute(insert(EventCounter).values(id=1, value=last_seq))
    db.execute(delete(ListingItem).where(ListingItem.clinic_id == clinic.id))
    seed_sandbox(request, clinic)
    db.flush()
    return {"clinic_id": str(clinic.id), "schema_revision": clinic.schema_revision, "last_seq": last_seq}
