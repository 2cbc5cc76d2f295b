"""Connections: a clinic granting a workspace's keys permissions on its data, in force until revoked or expired."""

import uuid

from sqlalchemy import select

from clinicrecords.access.models import Connection
from clinicrecords.access.published import APPROVED, CHANGED, NARROWED, REVOKED, ConnectionChanged
from clinicrecords.access.workspaces import (AccessError, get_clinic, of_owner, open_workspace,
                                             revoke_once)
from clinicrecords.db import security_events
from clinicrecords.clinics.services import clinic_names
from clinicrecords.clock import now as clock_now


def workspace_connections(db, workspace_id):
    """(Connection, clinic name) for every clinic that connected the workspace, active ones first."""
    connections = db.scalars(select(Connection).where(Connection.workspace_id == workspace_id)).all()
    names = clinic_names(db, {connection.clinic_id for connection in connections})
    named = [(connection, names[connection.clinic_id]) for connection in connections]
    return sorted(named, key=lambda pair: (pair[0].revoked_at is not None, pair[1], pair[0].clinic_id))


def grant_connection(db, workspace_id, clinic_id, scopes, expires_at=None, publish=None):
    """Connect a workspace to a clinic. Granting again while the connection is in force replaces the scopes
    (how a clinic narrows a grant); granting again after it was revoked or expired is a new connection, with
    a new `connected_at` (what automatic acceptance settings are tied to: a new connection starts with them
    off). `publish` (clinicrecords.publishing) is told a `ConnectionChanged`."""
    open_workspace(db, workspace_id)
    clinic = get_clinic(db, clinic_id)
    if clinic.is_sandbox:
        raise AccessError("a sandbox clinic cannot be connected; test keys reach their own sandbox")
    now = clock_now()
    if expires_at is not None and expires_at <= now:
        raise AccessError("--expires-at must be in the future")
    connection = db.scalar(select(Connection).where(Connection.workspace_id == workspace_id,
                                                    Connection.clinic_id == clinic_id))
    change = NARROWED
    if connection is None:
        connection = Connection(id=uuid.uuid4(), workspace_id=workspace_id, clinic_id=clinic_id)
        db.add(connection)
        change = APPROVED
    elif connection.revoked_at is not None or (connection.expires_at is not None and connection.expires_at <= now):
        connection.revoked_at = None
        connection.connected_at = now
        change = APPROVED
    elif set(scopes) - set(connection.scopes):
        change = CHANGED
    narrower = change != APPROVED and (set(connection.scopes) - set(scopes) or (
        expires_at is not None and (connection.expires_at is None or expires_at < connection.expires_at)))
    connection.scopes = sorted(scopes)
    connection.expires_at = expires_at
    db.flush()
    if narrower:
        security_events.record(db, security_events.CONNECTION_NARROWED, workspace_id=str(workspace_id),
                               clinic_id=str(clinic_id), scopes=connection.scopes,
                               expires_at=expires_at.isoformat() if expires_at else None)
    if publish is not None:
        publish(ConnectionChanged(workspace_id, clinic_id, change, tuple(connection.scopes), connection.expires_at))
    return connection


def revoke_connection(db, workspace_id, clinic_id, publish=None):
    """`publish` is told a `ConnectionChanged` (revoked), unless it was revoked already."""
    connection = db.scalar(select(Connection).where(Connection.workspace_id == workspace_id,
                                                    Connection.clinic_id == clinic_id))
    if connection is None:
        raise AccessError("no connection between that workspace and clinic")
    revocation = revoke_once(connection)
    if not revocation.already_revoked:
        security_events.record(db, security_events.CONNECTION_REVOKED, workspace_id=str(workspace_id),
                               clinic_id=str(clinic_id))
    if publish is not None and not revocation.already_revoked:
        publish(ConnectionChanged(workspace_id, clinic_id, REVOKED, ()))
    return revocation


def narrow_again(db, workspace_id, clinic_id, scopes, expires_at):
    """A narrowing recorded after a restore's point in time, applied again (docs/operations.md): an unrevoked
    connection keeps only the scopes it has and `scopes` both name, and the earlier of the two expiries. None
    when there is no such connection or it is revoked (nothing to narrow)."""
    connection = db.scalar(select(Connection).where(Connection.workspace_id == workspace_id,
                                                    Connection.clinic_id == clinic_id, Connection.revoked_at.is_(None)))
    if connection is None:
        return None
    connection.scopes = sorted(set(connection.scopes) & set(scopes))
    if expires_at is not None and (connection.expires_at is None or expires_at < connection.expires_at):
        connection.expires_at = expires_at
    db.flush()
    return connection


def list_connections(db, workspace_id=None, clinic_id=None):
    """Connections of one workspace or clinic (or every one), oldest first, revoked ones included."""
    return of_owner(db, Connection, Connection.connected_at, workspace_id, clinic_id)


def active_connections(now):
    """The connections in force at `now` (neither revoked nor expired) as a subquery (`workspace_id`,
    `clinic_id`, `scopes`), for another context to compose into its own single statement (the event routing:
    docs/performance.md)."""
    return (select(Connection.workspace_id, Connection.clinic_id, Connection.scopes)
            .where(Connection.revoked_at.is_(None), Connection.expires_at.is_(None) | (Connection.expires_at > now))
            .subquery("active_connection"))


def current_connection_at(db, workspace_id, clinic_id):
    """When the workspace's current (unrevoked) connection to the clinic was made, or None."""
    return db.scalar(select(Connection.connected_at).where(
        Connection.workspace_id == workspace_id, Connection.clinic_id == clinic_id, Connection.revoked_at.is_(None)))
