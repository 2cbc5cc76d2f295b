"""Which webhook endpoints an event of a clinic goes to. Also the recording rule (spec Events rule 5): a
clinic records events only while this finds at least one endpoint (its own, a connected organization's
live one, or for a sandbox clinic its workspace's test one). One indexed query on the control schema, composed
of the pieces access and clinics publish in their services (the active connections, a clinic's sandbox
workspace)."""

from dataclasses import dataclass

from sqlalchemy import and_, or_, select

from clinicrecords import clock
from clinicrecords.access.interfaces import ALL_PERMISSIONS
from clinicrecords.access.services import active_connections
from clinicrecords.clinics.services import sandbox_clinics_of, sandbox_workspace_of
from clinicrecords.events import types
from clinicrecords.events.models import WebhookEndpoint


@dataclass(frozen=True)
class Target:
    endpoint_id: object
    owner_id: object
    granted: frozenset
    types: tuple | None
    disabled: bool

    def entitled(self, type_name, data, audience_id, origin_id):
        if self.types is not None and type_name not in self.types:
            return False
        if not types.visible(type_name, data, self.granted, self.owner_id, audience_id):
            return False
        # The echo rule: a writer is not told about its own write when the event says nothing new.
        return not (types.EVENT_TYPES[type_name].echo and origin_id is not None and origin_id == self.owner_id)


def targets(db, clinic_id, now=None, endpoint_id=None):
    """Every endpoint (disabled ones too: they still count as registered) that an event of the clinic
    may go to, with the permissions its owner holds on the clinic."""
    now = now or clock.now()
    connection = active_connections(now)
    statement = (
        select(WebhookEndpoint, connection.c.scopes)
        .outerjoin(connection, and_(connection.c.workspace_id == WebhookEndpoint.workspace_id,
                                    connection.c.clinic_id == clinic_id))
        .where(or_(
            WebhookEndpoint.clinic_id == clinic_id,
            and_(WebhookEndpoint.mode == "live", connection.c.clinic_id.is_not(None)),
            and_(WebhookEndpoint.mode == "test", WebhookEndpoint.workspace_id == sandbox_workspace_of(clinic_id)),
        ))
    )
    if endpoint_id is not None:
        statement = statement.where(WebhookEndpoint.id == endpoint_id)
    found = []
    for endpoint, scopes in db.execute(statement):
        # A clinic's own endpoint and a sandbox's test endpoint see every type; a connection grants scopes.
        granted = frozenset(scopes) if endpoint.mode == "live" and endpoint.workspace_id else ALL_PERMISSIONS
        found.append(Target(endpoint.id, endpoint.owner_id, granted,
                            tuple(endpoint.types) if endpoint.types is not None else None,
                            endpoint.disabled_at is not None))
    return found


def clinics_of(db, endpoint, now=None):
    """The clinics whose events an endpoint receives now: a clinic's own, a workspace's sandbox (test) or
    the clinics actively connected to it (live)."""
    now = now or clock.now()
    if endpoint.clinic_id is not None:
        return [endpoint.clinic_id]
    if endpoint.mode == "test":
        return list(db.scalars(sandbox_clinics_of(endpoint.workspace_id)))
    connection = active_connections(now)
    return list(db.scalars(select(connection.c.clinic_id).where(connection.c.workspace_id == endpoint.workspace_id)
                           .order_by(connection.c.clinic_id)))
