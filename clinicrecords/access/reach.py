"""The clinics a key reaches, listed (GET /v1/connections), and the calling key (GET /v1/me). Which clinic a
key enters and with which permissions is the permission map's (`reach_of_key`), decided by the entry."""

from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access.models import Connection, Workspace
from clinicrecords.access.permission_map import live_access_blocked
from clinicrecords.api.pagination import Page, keyset_page
from clinicrecords.access.interfaces import IReach
from clinicrecords.clinics.services import find_clinic, with_clinic
from clinicrecords.clock import now as clock_now


@dataclass(frozen=True)
class Reached:
    clinic: object  # the clinic's control row
    granted: frozenset
    connection: Connection | None


@dataclass(frozen=True)
class CallingKey:
    identity: object
    owner_name: str


def _active_connection(now):
    return (Connection.revoked_at.is_(None)) & (Connection.expires_at.is_(None) | (Connection.expires_at > now))


@implementer(IReach)
class ReachService:
    def __init__(self, db):
        self.db = db

    def calling_key(self, identity):
        owner = find_clinic(self.db, identity.clinic_id) if identity.clinic_id else self.db.get(
            Workspace, identity.workspace_id)
        return CallingKey(identity, owner.name)

    def reachable(self, identity, query, cursors, now=None):
        """One page (`Page`) of the clinics the key reaches now (`Reached`), for GET /v1/connections, oldest
        connection first: none while its live access is blocked (`live_access_blocked`), whatever connections
        its workspace holds. `query` holds `limit` and `starting_after`; `cursors` is the list's ListCursors."""
        if identity.clinic_id is not None:
            return _only(Reached(find_clinic(self.db, identity.clinic_id), identity.scopes, None), query, cursors)
        if identity.is_test:
            return _only(Reached(find_clinic(self.db, identity.sandbox_clinic_id), identity.scopes, None), query,
                         cursors)
        if live_access_blocked(identity) is not None:
            return Page([], has_more=False, next_cursor=None)
        now = now or clock_now()
        statement = (with_clinic(select(Connection, Connection.connected_at, Connection.clinic_id),
                                 Connection.clinic_id, real_only=True)
                     .where(Connection.workspace_id == identity.workspace_id, _active_connection(now)))
        page = keyset_page(cursors, self.db, statement, (Connection.connected_at, Connection.clinic_id), query,
                           rows=True)
        page.items = [Reached(row.Clinic, identity.scopes & frozenset(row.Connection.scopes), row.Connection)
                      for row in page.items]
        return page


def _only(reached, query, cursors):
    """The one-entry list of a clinic key (its clinic) or a test key (its sandbox): a cursor is still checked,
    and any valid one points past the only entry."""
    if query.get("starting_after"):
        cursors.signer.verify(query["starting_after"], cursors.scope)
        return Page([], has_more=False, next_cursor=None)
    return Page([reached], has_more=False, next_cursor=None)


def reach_factory(context, request):
    return ReachService(request.db)
