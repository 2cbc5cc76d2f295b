"""Which clinics a key reaches, and with which permissions. Spec: Authentication → Reach.

Precedence when several refusals apply (docs/authentication.md): invalid_key, ip_not_allowed, rate_limited,
then sandbox_only, not_verified, workspace_plan_required (all about the key itself, so they leak nothing
about the clinic), then not_found (the clinic is outside reach, or does not exist: one answer for both),
then scope_missing.
"""

from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.clinics.interfaces import IReach
from clinicrecords.access.models import Connection, Workspace
from clinicrecords.access.permission_map import live_access_blocked
from clinicrecords.api.pagination import Page, keyset_page
from clinicrecords.api.problems import Problem
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

    def clinic(self, identity, clinic_id, now=None):
        """(clinic, granted permissions) for this key, or a Problem / KeyError (404) when out of reach.

        When authentication already read this clinic's row and connection in the key's statement
        (`identity.prefetched`), the decision is made from it without another query."""
        prefetched = identity.prefetched if identity.prefetched and identity.prefetched.clinic_id == clinic_id \
            else None
        if identity.clinic_id is not None:
            if clinic_id != identity.clinic_id:
                raise KeyError(clinic_id)
            return self._clinic(prefetched, clinic_id), identity.scopes
        if identity.is_test:
            if clinic_id != identity.sandbox_clinic_id:
                raise Problem("sandbox_only", "A test key reaches only its workspace's sandbox clinic.")
            return self._clinic(prefetched, clinic_id), identity.scopes
        blocked = live_access_blocked(identity)
        if blocked is not None:
            raise blocked
        if prefetched is not None:
            clinic = prefetched.clinic
            if clinic is None or clinic.is_sandbox or prefetched.connection_scopes is None:
                raise KeyError(clinic_id)
            return self._attached(clinic), identity.scopes & frozenset(prefetched.connection_scopes)
        now = now or clock_now()
        row = self.db.execute(
            with_clinic(select(Connection.scopes), Connection.clinic_id, real_only=True)
            .where(Connection.clinic_id == clinic_id, Connection.workspace_id == identity.workspace_id,
                   _active_connection(now))
        ).first()
        if row is None:
            raise KeyError(clinic_id)
        return row.Clinic, identity.scopes & frozenset(row.scopes)

    def _clinic(self, prefetched, clinic_id):
        if prefetched is None:
            return find_clinic(self.db, clinic_id)
        return self._attached(prefetched.clinic) if prefetched.clinic is not None else None

    def _attached(self, clinic):
        """The key's statement ran before the request's transaction: join its clinic row to the request's
        session as it was read (no query), so the request uses it like any row it loaded itself."""
        return self.db.merge(clinic, load=False)

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
    # Asked during traversal, before any scope exists: the request's session is all it takes.
    return ReachService(request.db)
