"""Who is calling: the key behind the Authorization header, resolved once per request."""

import datetime
import ipaddress
import uuid
from dataclasses import dataclass

from sqlalchemy import select, text

from clinicrecords.access.keys import bearer_token, masked, parse_key, secret_matches
from clinicrecords.access.models import ApiKey, Workspace
from clinicrecords.access.permissions import ALL_PERMISSIONS
from clinicrecords.access.ratelimit import current_decision


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


def authenticate(db, pepper, authorization, now=None):
    """The identity for an Authorization header value, or None for every kind of bad key."""
    parsed = parse_key(bearer_token(authorization))
    if parsed is None:
        return None
    row = db.execute(
        select(ApiKey, Workspace).outerjoin(Workspace, Workspace.id == ApiKey.workspace_id)
        .where(ApiKey.key_id == parsed.key_id)
    ).first()
    key, workspace = (row.ApiKey, row.Workspace) if row else (None, None)
    if not secret_matches(pepper, parsed.secret, key.secret_hash if key else None):
        return None
    now = now or datetime.datetime.now(datetime.UTC)
    if key.mode != parsed.mode or key.revoked_at is not None or (key.expires_at and key.expires_at <= now):
        return None
    return KeyIdentity(
        id=key.id,
        key_id=key.key_id,
        mode=key.mode,
        clinic_id=key.clinic_id,
        workspace_id=key.workspace_id,
        scopes=frozenset(key.scopes) if key.scopes is not None else ALL_PERMISSIONS,
        ip_allow=tuple(key.ip_allow or ()),
        rate_limit=key.rate_limit,
        created_at=key.created_at,
        expires_at=key.expires_at,
        workspace_verified=bool(workspace and workspace.verified),
        workspace_plan=workspace.plan if workspace else None,
        workspace_terms_accepted=bool(workspace and workspace.terms_accepted),
        sandbox_clinic_id=workspace.sandbox_clinic_id if workspace else None,
    )


_TOUCH = text("""
UPDATE control.api_keys SET last_used_at = now()
WHERE id = (SELECT id FROM control.api_keys WHERE id = CAST(:id AS uuid) FOR UPDATE SKIP LOCKED)
""")


def record_last_use(request, identity):
    """Gate check: set the key's last_used_at on its first request of each rate-limit window, so at most once
    a minute per key; in autocommit and SKIP LOCKED, so it never waits for an operator changing the key."""
    decision = current_decision(request)
    if decision is not None and decision.count == 1:
        with request.registry["db.engine"].connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(_TOUCH, {"id": identity.id})
