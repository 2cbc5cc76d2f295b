"""Connections as a workspace sees them: one row per clinic, one column per permission any clinic granted."""

import datetime
from dataclasses import dataclass
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.portal.developer.connections.interfaces import IConnectionsView


@dataclass(frozen=True)
class ConnectionRow:
    clinic_id: object
    clinic_name: str
    granted: frozenset
    connected_at: datetime.datetime
    expires_at: datetime.datetime | None
    revoked_at: datetime.datetime | None

    def status(self, now):
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "active"


@dataclass(frozen=True)
class ConnectionTable:
    rows: list
    permissions: list  # the columns: every permission granted by at least one clinic, sorted


@implementer(IConnectionsView)
class ConnectionsView:
    def __init__(self, db):
        self.db = db

    def table(self, workspace_id):
        rows = [ConnectionRow(connection.clinic_id, name, frozenset(connection.scopes), connection.connected_at,
                              connection.expires_at, connection.revoked_at)
                for connection, name in access.workspace_connections(self.db, workspace_id)]
        return ConnectionTable(rows, sorted(set().union(*(row.granted for row in rows))) if rows else [])


def connections_view_factory(context, request):
    return ConnectionsView(request.db)
