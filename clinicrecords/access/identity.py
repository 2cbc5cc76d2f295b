"""Who is calling: the key behind the Authorization header, resolved once per request."""

import datetime
import ipaddress
import uuid
from dataclasses import dataclass, field, replace

from sqlalchemy import DateTime, String, Uuid, bindparam, select, text

from clinicrecords.access.keys import bearer_token, masked, parse_key, secret_matches
from clinicrecords.access.models import ApiKey, Connection, ReachVersion, Workspace
from clinicrecords.access.permissions import ALL_PERMISSIONS
from clinicrecords.access.ratelimit import current_decision
from clinicrecords.clinics.services import with_clinic
from clinicrecords.clock import now as clock_now
from clinicrecords.db.commit_or_apart import Apart, apart
from clinicrecords.identity.services import terms_accepted


@dataclass(frozen=True)
class KeyIdentity:
    id: uuid.UUID
    key_id: str
    mode: str
    clinic_id: uuid.UUID | None
    workspace_id: uuid.UUID | None
    scopes: frozenset
    ip_allow: tuple
    rate_limit: int | None
    created_at: datetime.datetime
    expires_at: datetime.datetime | None
    workspace_verified: bool = False
    workspace_plan: str | None = None
    workspace_terms_accepted: bool = False
    sandbox_clinic_id: uuid.UUID | None = None
    # The reach version this identity was cached with (clinicrecords.access.keycache); None when the key was
    # read on this request. The rate limiter counts a cached identity only while the version is unchanged.
    cached_at_version: int | None = field(default=None, compare=False, repr=False)

    @property
    def masked_key_id(self):
        return masked(self.mode, self.key_id)

    @property
    def owner_id(self):
        return self.clinic_id or self.workspace_id

    @property
    def is_test(self):
        return self.mode == "test"

    def ip_allowed(self, address):
        if not self.ip_allow:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in ipaddress.ip_network(cidr, strict=False) for cidr in self.ip_allow)


@dataclass(frozen=True)
class ClinicFound:
    """What the key's statement read about the clinic the request's path names, for the entry to decide the
    key's reach of it (clinicrecords.access.permission_map.reach_of_key) without another round trip."""

    clinic_id: uuid.UUID
    clinic: object  # the Clinic (a row of the autocommit read, not yet in the request's session), or None
    connection_scopes: tuple | None  # the workspace's active connection to it, or None
    connection_expires_at: datetime.datetime | None = None


@dataclass(frozen=True)
class KeyRead:
    """A valid key as read, by the statement or from the key cache: who calls and, when the path names a
    clinic, what was read about it. The entry keeps `found` to itself: only the identity goes on."""

    identity: KeyIdentity
    found: ClinicFound | None = None


_CLINIC_ID = bindparam("clinic_id", type_=Uuid())
_NOW = bindparam("now", type_=DateTime(timezone=True))

# Built once: columns, not ORM entities, for the key and its workspace; the clinic (clinics.services adds it)
# is an entity because the request keeps using it (the clinic scope's clinic). A null :clinic_id joins nothing.
# Whether the workspace accepted the API Terms is the identity context's record, composed as a subquery.
# The reach version is read in the same snapshot, so a cached copy is never newer-labelled than its data.
_KEY_AND_REACH = with_clinic(
    select(ApiKey.id, ApiKey.key_id, ApiKey.mode, ApiKey.clinic_id, ApiKey.workspace_id, ApiKey.secret_hash,
           ApiKey.scopes, ApiKey.ip_allow, ApiKey.rate_limit, ApiKey.created_at, ApiKey.expires_at,
           ApiKey.revoked_at, Workspace.verified, Workspace.plan, terms_accepted(Workspace.id).label("terms_accepted"),
           Workspace.sandbox_clinic_id, Connection.scopes.label("connection_scopes"),
           Connection.expires_at.label("connection_expires_at"),
           select(ReachVersion.version).scalar_subquery().label("reach_version"))
    .outerjoin(Workspace, Workspace.id == ApiKey.workspace_id)
    .outerjoin(Connection, (Connection.workspace_id == ApiKey.workspace_id) & (Connection.clinic_id == _CLINIC_ID)
               & Connection.revoked_at.is_(None) & (Connection.expires_at.is_(None) | (Connection.expires_at > _NOW)))
    .where(ApiKey.key_id == bindparam("key_id", type_=String())),
    _CLINIC_ID, outer=True,
)


def authenticate(db, pepper, authorization, now=None):
    """The identity for an Authorization header value, or None for every kind of bad key."""
    parsed = parse_key(bearer_token(authorization))
    if parsed is None:
        return None
    read = read_key(db, pepper, parsed, None, now or clock_now())
    return read.identity if read is not None else None


def read_key(db, pepper, parsed, clinic_id, now, cache=None):
    """The key (a `KeyRead`, or None for every kind of bad key) by the statement, with what it found of the
    clinic `clinic_id` names (None: no clinic named); a valid one goes into `cache` (a KeyCache) labelled
    with the reach version it was read at."""
    row = db.execute(_KEY_AND_REACH, {"key_id": parsed.key_id, "clinic_id": clinic_id, "now": now}).first()
    identity = _identity(pepper, parsed, now, row)
    if identity is None:
        return None
    found = ClinicFound(clinic_id, row.Clinic, tuple(row.connection_scopes) if row.connection_scopes is not None
                        else None, row.connection_expires_at) if clinic_id is not None else None
    if cache is not None:
        cache.put(parsed.key_id, clinic_id, row.secret_hash,
                  KeyRead(replace(identity, cached_at_version=row.reach_version), found))
    return KeyRead(identity, found)


def _identity(pepper, parsed, now, row):
    if not secret_matches(pepper, parsed.secret, row.secret_hash if row else None):
        return None
    if row.mode != parsed.mode or row.revoked_at is not None or (row.expires_at and row.expires_at <= now):
        return None
    has_workspace = row.workspace_id is not None
    return KeyIdentity(
        id=row.id,
        key_id=row.key_id,
        mode=row.mode,
        clinic_id=row.clinic_id,
        workspace_id=row.workspace_id,
        scopes=frozenset(row.scopes) if row.scopes is not None else ALL_PERMISSIONS,
        ip_allow=tuple(row.ip_allow or ()),
        rate_limit=row.rate_limit,
        created_at=row.created_at,
        expires_at=row.expires_at,
        workspace_verified=bool(has_workspace and row.verified),
        workspace_plan=row.plan if has_workspace else None,
        workspace_terms_accepted=bool(has_workspace and row.terms_accepted),
        sandbox_clinic_id=row.sandbox_clinic_id if has_workspace else None,
    )


_TOUCH = text("""
UPDATE control.api_keys SET last_used_at = now(), last_used_address = CAST(:address AS varchar)
WHERE id = (SELECT id FROM control.api_keys WHERE id = CAST(:id AS uuid) FOR UPDATE SKIP LOCKED)
""")


def record_last_use(request, identity):
    """Gate check: set the key's last_used_at (and the address it came from, shown in the portal) on its first
    request of each rate-limit window, so at most once a minute per key; once the request's transaction has
    ended, in a short transaction of its own (`commit_or_apart.apart`: the request never holds a second
    connection for it), and SKIP LOCKED, so it never waits for an operator changing the key."""
    decision = current_decision(request)
    if decision is not None and decision.count == 1:
        values = {"id": identity.id, "address": (request.remote_addr or "")[:64] or None}
        apart(request, lambda outcome: Apart(_TOUCH, values))
