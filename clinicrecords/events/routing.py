"""Which webhook endpoints an event of a clinic goes to. Also the recording rule (spec Events rule 5): a
clinic records events only while this finds at least one endpoint (its own, a connected organization's
live one, or for a sandbox clinic its workspace's test one). One indexed query on the control schema."""

from dataclasses import dataclass

from sqlalchemy import and_, or_, select

from clinicrecords import clock
from clinicrecords.access.models import Connection
from clinicrecords.access.permissions import ALL_PERMISSIONS
from clinicrecords.clinics.models import Clinic
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


def _active(now):
    return Connection.revoked_at.is_(None) & (Connection.expires_at.is_(None) | (Connection.expires_at > now))


def targets(db, clinic_id, now=None, endpoint_id=None):
    """Every endpoint (disabled ones too: they still count as registered) that an event of the clinic
    may go to, with the permissions its owner holds on the clinic."""
    now = now or clock.now()
    sandbox_of = select(Clinic.sandbox_of_workspace_id).where(Clinic.id == clinic_id).scalar_subquery()
    statement = (
        select(WebhookEndpoint, Connection.scopes)
        .outerjoin(Connection, and_(Connection.workspace_id == WebhookEndpoint.workspace_id,
                                    Connection.clinic_id == clinic_id, _active(now)))
        .where(or_(
            WebhookEndpoint.clinic_id == clinic_id,
            and_(WebhookEndpoint.mode == "live", Connection.id.is_not(None)),
            and_(WebhookEndpoint.mode == "test", WebhookEndpoint.workspace_id == sandbox_of),
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
        return list(db.scalars(select(Clinic.id).where(Clinic.sandbox_of_workspace_id == endpoint.workspace_id)))
    return list(db.scalars(select(Connection.clinic_id)
                           .where(Connection.workspace_id == endpoint.workspace_id, _active(now))
                           .order_by(Connection.clinic_id)))
