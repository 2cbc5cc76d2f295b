"""API keys as records: created, rolled once, revoked, listed, named and fenced by address (what operators and
the portal do with keys; the secret itself is access/keys.py's)."""

import datetime
import ipaddress
import re
import uuid

from sqlalchemy import select

from clinicrecords.access.keys import hash_secret, new_key
from clinicrecords.access.models import ApiKey
from clinicrecords.access.workspaces import (AccessError, get_clinic, of_owner, open_workspace,
                                             revoke_once)
from clinicrecords.db import security_events
from clinicrecords.clock import now as clock_now
from clinicrecords.mail.services import NAME_REFUSED, holds_link_or_key


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
    if holds_link_or_key(name):
        raise AccessError(f"a key's name {NAME_REFUSED}")
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
        open_workspace(db, workspace_id)
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


def revoke_key(db, key_id):
    key = db.scalar(select(ApiKey).where(ApiKey.key_id == key_id))
    if key is None:
        raise AccessError(f"no key {key_id}")
    revocation = revoke_once(key)
    if not revocation.already_revoked:
        security_events.record(db, security_events.KEY_REVOKED, key_id=key.key_id)
    return revocation


def list_keys(db, workspace_id=None, clinic_id=None):
    """Keys of one owner (or every key), oldest first, revoked ones included."""
    return of_owner(db, ApiKey, ApiKey.created_at, workspace_id, clinic_id)


def workspace_of_key(db, api_key_id):
    """The workspace of the key with this internal id (None for a clinic's own key, or no such key)."""
    return db.scalar(select(ApiKey.workspace_id).where(ApiKey.id == api_key_id))


def key_by_key_id(db, key_id):
    """The key with this public id (revoked or not), or None."""
    return db.scalar(select(ApiKey).where(ApiKey.key_id == key_id))
