"""Workspaces, keys and connections: what operators create for partners (never through the API)."""

import datetime
import ipaddress
import uuid
from dataclasses import dataclass

from sqlalchemy import select

from clinicrecords.access.keys import hash_secret, new_key
from clinicrecords.access.models import ApiKey, Connection, Workspace
from clinicrecords.access.permission_map import may_use_helpers  # noqa: F401 (other contexts ask it here)
from clinicrecords.clinics.services import clinic_names, find_clinic
from clinicrecords.clinics.services import create_clinic
from clinicrecords.clock import now as clock_now
from clinicrecords.errors import InvalidInput


class AccessError(InvalidInput):
    """Bad input for an access operation; nothing was written."""


def create_workspace(db, name, verified=False, paid=False, terms_accepted=False, seed=None, workspace_id=None):
    """A workspace and its own sandbox clinic, seeded by `seed(db, clinic)`."""
    name = (name or "").strip()
    if not name or len(name) > 200:
        raise AccessError("name must be 1 to 200 characters")
    workspace = Workspace(id=workspace_id or uuid.uuid4(), name=name, verified=verified,
                          plan="paid" if paid else "sandbox", terms_accepted=terms_accepted)
    db.add(workspace)
    db.flush()
    sandbox = create_clinic(db, f"{name} sandbox clinic", sandbox_of_workspace_id=workspace.id)
    workspace.sandbox_clinic_id = sandbox.id
    if seed is not None:
        seed(db, sandbox)
    return workspace


def get_workspace(db, workspace_id):
    workspace = db.get(Workspace, workspace_id)
    if workspace is None:
        raise AccessError(f"no workspace {workspace_id}")
    return workspace


def get_clinic(db, clinic_id):
    clinic = find_clinic(db, clinic_id)
    if clinic is None:
        raise AccessError(f"no clinic {clinic_id}")
    return clinic


def set_workspace(db, workspace_id, verified=None, paid=None, terms_accepted=None):
    workspace = get_workspace(db, workspace_id)
    if verified is not None:
        workspace.verified = verified
    if paid is not None:
        workspace.plan = "paid" if paid else "sandbox"
    if terms_accepted is not None:
        workspace.terms_accepted = terms_accepted
    return workspace


def validate_cidrs(cidrs):
    try:
        return [str(ipaddress.ip_network(cidr, strict=False)) for cidr in cidrs]
    except ValueError as exc:
        raise AccessError(f"--ip-allow: {exc}") from None


def create_key(db, pepper, *, clinic_id=None, workspace_id=None, mode=None, scopes=None, ip_allow=(),
               expires_at=None, rate_limit=None):
    """Returns (ApiKey, the full key string). The string is never stored and never shown again."""
    if (clinic_id is None) == (workspace_id is None):
        raise AccessError("a key belongs to exactly one clinic or one workspace")
    if clinic_id is not None:
        clinic = get_clinic(db, clinic_id)
        if clinic.is_sandbox:
            raise AccessError("a sandbox clinic has no keys of its own; use a test key of its workspace")
        mode = "live"
    else:
        get_workspace(db, workspace_id)
        if mode not in ("live", "test"):
            raise AccessError("--mode must be live or test")
    if expires_at is not None and expires_at <= clock_now():
        raise AccessError("--expires-at must be in the future")
    if rate_limit is not None and rate_limit < 1:
        raise AccessError("--rate-limit must be at least 1")
    key_id, secret, full_key = new_key(mode)
    key = ApiKey(
        id=uuid.uuid4(), key_id=key_id, mode=mode, clinic_id=clinic_id, workspace_id=workspace_id,
        secret_hash=hash_secret(pepper, secret), scopes=sorted(scopes) if scopes is not None else None,
        ip_allow=validate_cidrs(ip_allow) or None, expires_at=expires_at, rate_limit=rate_limit,
    )
    db.add(key)
    db.flush()
    return key, full_key


def workspace_keys(db, workspace_id):
    """The workspace's keys that are not revoked, newest first (expired ones included: the list says so)."""
    return db.scalars(select(ApiKey).where(ApiKey.workspace_id == workspace_id, ApiKey.revoked_at.is_(None))
                      .order_by(ApiKey.created_at.desc(), ApiKey.key_id)).all()


def workspace_key(db, workspace_id, key_id):
    """The workspace's own unrevoked key with this public id, or None (another workspace's key is None too)."""
    return db.scalar(select(ApiKey).where(ApiKey.workspace_id == workspace_id, ApiKey.key_id == key_id,
                                          ApiKey.revoked_at.is_(None)))


def roll_key(db, pepper, key, overlap):
    """A new key with the old one's mode, owner, scopes, addresses and rate limit; the old one keeps working
    for `overlap` (a timedelta; zero revokes it now). Returns (new ApiKey, its full key string).

    The new key has a new id, so no automatic acceptance follows it (spec: a rolled key starts with it off)."""
    now = clock_now()
    new, full_key = create_key(db, pepper, clinic_id=key.clinic_id, workspace_id=key.workspace_id, mode=key.mode,
                               scopes=key.scopes, ip_allow=key.ip_allow or (), rate_limit=key.rate_limit)
    new.rolled_from_id = key.id
    if overlap <= datetime.timedelta(0):
        key.revoked_at = now
    elif key.expires_at is None or key.expires_at > now + overlap:
        key.expires_at = now + overlap
    db.flush()
    return new, full_key


def set_key_ip_allow(db, key, cidrs):
    """Replace the key's allow-list (CIDRs, validated); an empty list lets every address in."""
    key.ip_allow = validate_cidrs(cidrs) or None
    return key


def workspace_connections(db, workspace_id):
    """(Connection, clinic name) for every clinic that connected the workspace, active ones first."""
    connections = db.scalars(select(Connection).where(Connection.workspace_id == workspace_id)).all()
    names = clinic_names(db, {connection.clinic_id for connection in connections})
    named = [(connection, names[connection.clinic_id]) for connection in connections]
    return sorted(named, key=lambda pair: (pair[0].revoked_at is not None, pair[1], pair[0].clinic_id))


@dataclass(frozen=True)
class Revocation:
    """A key or connection after `revoke_*`: revoking again changes nothing and says so."""

    record: ApiKey | Connection
    already_revoked: bool


def _revoke(record):
    already = record.revoked_at is not None
    if not already:
        record.revoked_at = clock_now()
    return Revocation(record, already)


def revoke_key(db, key_id):
    key = db.scalar(select(ApiKey).where(ApiKey.key_id == key_id))
    if key is None:
        raise AccessError(f"no key {key_id}")
    return _revoke(key)


def grant_connection(db, workspace_id, clinic_id, scopes, expires_at=None):
    """Connect a workspace to a clinic. Granting again while the connection is in force replaces the scopes
    (how a clinic narrows a grant); granting again after it was revoked or expired is a new connection, with
    a new `connected_at` (what automatic acceptance settings are tied to: a new connection starts with them
    off)."""
    get_workspace(db, workspace_id)
    clinic = get_clinic(db, clinic_id)
    if clinic.is_sandbox:
        raise AccessError("a sandbox clinic cannot be connected; test keys reach their own sandbox")
    now = clock_now()
    if expires_at is not None and expires_at <= now:
        raise AccessError("--expires-at must be in the future")
    connection = db.scalar(select(Connection).where(Connection.workspace_id == workspace_id,
                                                    Connection.clinic_id == clinic_id))
    if connection is None:
        connection = Connection(id=uuid.uuid4(), workspace_id=workspace_id, clinic_id=clinic_id)
        db.add(connection)
    elif connection.revoked_at is not None or (connection.expires_at is not None and connection.expires_at <= now):
        connection.revoked_at = None
        connection.connected_at = now
    connection.scopes = sorted(scopes)
    connection.expires_at = expires_at
    db.flush()
    return connection


def revoke_connection(db, workspace_id, clinic_id):
    connection = db.scalar(select(Connection).where(Connection.workspace_id == workspace_id,
                                                    Connection.clinic_id == clinic_id))
    if connection is None:
        raise AccessError("no connection between that workspace and clinic")
    return _revoke(connection)


def list_workspaces(db):
    return db.scalars(select(Workspace).order_by(Workspace.created_at, Workspace.id)).all()


def list_keys(db, workspace_id=None, clinic_id=None):
    """Keys of one owner (or every key), oldest first, revoked ones included."""
    return _of_owner(db, ApiKey, ApiKey.created_at, workspace_id, clinic_id)


def list_connections(db, workspace_id=None, clinic_id=None):
    """Connections of one workspace or clinic (or every one), oldest first, revoked ones included."""
    return _of_owner(db, Connection, Connection.connected_at, workspace_id, clinic_id)


def _of_owner(db, model, oldest_first, workspace_id, clinic_id):
    query = select(model).order_by(oldest_first, model.id)
    if workspace_id is not None:
        query = query.where(model.workspace_id == get_workspace(db, workspace_id).id)
    if clinic_id is not None:
        query = query.where(model.clinic_id == get_clinic(db, clinic_id).id)
    return db.scalars(query).all()


def workspace_is_verified(db, workspace_id):
    """The flag the live-key gate reads (`not_verified`); domain verification and operators set it."""
    return get_workspace(db, workspace_id).verified


def workspace_of_key(db, api_key_id):
    """The workspace of the key with this internal id (None for a clinic's own key, or no such key)."""
    return db.scalar(select(ApiKey.workspace_id).where(ApiKey.id == api_key_id))


def key_by_key_id(db, key_id):
    """The key with this public id (revoked or not), or None."""
    return db.scalar(select(ApiKey).where(ApiKey.key_id == key_id))


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


# For the sandbox's demo command: a key read back as the API reads it.
from clinicrecords.access.identity import authenticate as authenticate  # noqa: E402
