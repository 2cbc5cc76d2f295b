"""The helpers' one rule of their own: resetting a sandbox. Every other helper calls the staff action of the
context that owns it (`<context>.services`, as its operator command does), so the sandbox sees exactly what
clinic staff cause."""

from sqlalchemy.schema import DropSchema

from clinicrecords.clinics.services import open_clinic
from clinicrecords.db.meta import TenantBase
from clinicrecords.db.migrations import create_tenant_schema
from clinicrecords.db.tenancy import bind_to_clinic, schema_name
from clinicrecords.errors import InvalidInput
from clinicrecords.events.services import continue_seq_after, last_seq
from clinicrecords.listings.services import forget_items
from clinicrecords.sandbox.services import seed_sandbox


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
    seq = last_seq(db)
    for instance in list(db.identity_map.values()):
        if isinstance(instance, TenantBase):
            db.expunge(instance)
    connection = db.connection()
    connection.execute(DropSchema(schema_name(clinic.id), cascade=True))
    revision = create_tenant_schema(connection, clinic.id)
    clinic = open_clinic(db, clinic.id)  # the session's own instance, bound to the rebuilt schema
    clinic.schema_revision = revision
    if seq:  # before seeding: events the seed emits follow the old ones
        continue_seq_after(db, seq)
    forget_items(db, clinic.id)
    seed_sandbox(request, clinic)
    db.flush()
    return {"clinic_id": str(clinic.id), "schema_revision": clinic.schema_revision, "last_seq": seq}
