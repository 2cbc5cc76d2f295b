"""Workspaces, keys and connections: what operators create for partners (never through the API)."""

import datetime
import ipaddress
import re
import uuid
from dataclasses import dataclass

from sqlalchemy import String, cast, literal, null, select, union_all

from clinicrecords.access.keys import hash_secret, masked, new_key
from clinicrecords.access.models import ApiKey, Connection, Workspace
from clinicrecords.clinics.services import clinic_name_rows, clinic_names, find_clinic
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


MAX_KEY_NAME = 100
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def key_name(text):
    """A key's optional name, cleaned: None when empty; at most 100 characters, one line, not unique."""
    name = (text or "").strip()
    if len(name) > MAX_KEY_NAME:
        raise AccessError(f"a key's name is at most {MAX_KEY_NAME} characters")
    if _CONTROL.search(name):
        raise AccessError("a key's name is one line of text, without control characters")
    return name or None


def create_key(db, pepper, *, clinic_id=None, workspace_id=None, mode=None, scopes=None, ip_allow=(),
               expires_at=None, rate_limit=None, name=None):
    """Returns (ApiKey, the full key string). The string is never stored and never shown again."""
    name = key_name(name)
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
        id=uuid.uuid4(), key_id=key_id, name=name, mode=mode, clinic_id=clinic_id, workspace_id=workspace_id,
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


class KeyAlreadyRolled(AccessError):
    """A key is rolled once: its replacement (`successor`, None if since revoked) is the one to roll next."""

    def __init__(self, successor):
        self.successor = successor
        super().__init__("this key was rolled already: roll the key that replaced it")


class LiveKeyRefused(AccessError):
    """A new live key for a workspace that does not meet the live-key gate: `missing` names its conditions."""

    def __init__(self, missing):
        self.missing = missing
        super().__init__("a live key needs " + ", ".join(f"{condition.need} ({condition.code})"
                                                           for condition in missing))


def roll_key(db, pepper, key, overlap, live_gate=None):
    """A new key with the old one's mode, owner, name, scopes, addresses and rate limit; the old one keeps
    working for `overlap` (a timedelta; zero revokes it now). Returns (new ApiKey, its full key string).

    A key is rolled once (KeyAlreadyRolled): rolling it again would add key after key and move its end again.
    Rolling a workspace's live key makes a live key, so it passes the live-key gate as creating one does
    (`live_gate`, the ILiveKeyGate; LiveKeyRefused). A clinic's own key has no gate. The old key's row is
    locked first, so two rolls at once make one key.

    The new key has a new id, so no automatic acceptance follows it (spec: a rolled key starts with it off)."""
    key = db.scalar(select(ApiKey).where(ApiKey.id == key.id).with_for_update()
                    .execution_options(populate_existing=True))
    if db.scalar(select(ApiKey.id).where(ApiKey.rolled_from_id == key.id)) is not None:
        raise KeyAlreadyRolled(db.scalar(select(ApiKey).where(ApiKey.rolled_from_id == key.id,
                                                              ApiKey.revoked_at.is_(None))))
    if key.workspace_id is not None and key.mode == "live":
        missing = live_gate.missing(key.workspace_id)
        if missing:
            raise LiveKeyRefused(missing)
    now = clock_now()
    new, full_key = create_key(db, pepper, clinic_id=key.clinic_id, workspace_id=key.workspace_id, mode=key.mode,
                               scopes=key.scopes, ip_allow=key.ip_allow or (), rate_limit=key.rate_limit,
                               name=key.name)
    new.rolled_from_id = key.id
    if overlap <= datetime.timedelta(0):
        key.revoked_at = now
    elif key.expires_at is None or key.expires_at > now + overlap:
        key.expires_at = now + overlap
    db.flush()
    return new, full_key


def rolled_key_ids(db, key_ids):
    """Of these keys (ApiKey ids), those rolled already (a key is rolled once)."""
    if not key_ids:
        return set()
    return set(db.scalars(select(ApiKey.rolled_from_id).where(ApiKey.rolled_from_id.in_(key_ids))))


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


@dataclass(frozen=True)
class KeyName:
    """A key as people read it: `label` (its name, or its masked id) and `masked`."""

    name: str | None
    masked: str

    @property
    def label(self):
        return self.name or self.masked


@dataclass(frozen=True)
class DisplayNames:
    """What a page shows for the ids it holds: workspaces' and clinics' names by uuid, keys by public id."""

    workspaces: dict
    clinics: dict
    keys: dict  # public key id → KeyName


def display_names(db, workspace_ids=(), clinic_ids=(), key_ids=()):
    """The names of these workspaces, clinics and keys, in one statement for a whole page (an audit trail or a
    request log shows ids where people read names). Unknown ids are left out."""
    workspace_ids, clinic_ids, key_ids = set(workspace_ids), set(clinic_ids), set(key_ids)
    parts = []
    if workspace_ids:
        parts.append(select(literal("workspace").label("kind"), cast(Workspace.id, String).label("ref"),
                            Workspace.name.label("name"), null().label("mode"))
                     .where(Workspace.id.in_(workspace_ids)))
    if clinic_ids:
        clinics = clinic_name_rows(clinic_ids).subquery()
        parts.append(select(literal("clinic"), cast(clinics.c.id, String), clinics.c.name, null()))
    if key_ids:
        parts.append(select(literal("key"), ApiKey.key_id, ApiKey.name, ApiKey.mode).where(ApiKey.key_id.in_(key_ids)))
    names = DisplayNames({}, {}, {})
    if not parts:
        return names
    for kind, ref, name, mode in db.execute(union_all(*parts) if len(parts) > 1 else parts[0]):
        if kind == "key":
            names.keys[ref] = KeyName(name, masked(mode, ref))
        else:
            (names.workspaces if kind == "workspace" else names.clinics)[uuid.UUID(ref)] = name
    return names


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

# For the test helpers' sandbox clinic, entered as /v1/clinics/{clinic_id} is, with the helpers' reach; the
# permission map's check for the portal's policy; and its row rules, which the patients and clinical contexts
# apply to their own tables.
from clinicrecords.access.entry import enter as enter  # noqa: E402
from clinicrecords.access.permission_map import holds as holds  # noqa: E402
from clinicrecords.access.permission_map import reach_of_helpers as reach_of_helpers  # noqa: E402
from clinicrecords.access.permission_map import sent_by as sent_by  # noqa: E402
from clinicrecords.access.permission_map import shown_to_keys as shown_to_keys  # noqa: E402
