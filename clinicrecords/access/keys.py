"""Bearer keys: `ehr_<mode>_<keyId>_<secret>`. The secret is random enough for a fast keyed hash."""

import functools
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

KEY_PATTERN = re.compile(r"^ehr_(live|test)_([0-9a-f]{16})_([0-9a-f]{48})$")
_DUMMY_HASH = bytes(32)


@dataclass(frozen=True)
class ParsedKey:
    mode: str
    key_id: str
    secret: str


def new_key(mode):
    """A fresh (key_id, secret, full key string)."""
    key_id = secrets.token_hex(8)
    secret = secrets.token_hex(24)
    return key_id, secret, f"ehr_{mode}_{key_id}_{secret}"


def parse_key(text):
    match = KEY_PATTERN.match(text or "")
    if match is None:
        return None
    return ParsedKey(*match.groups())


def hash_secret(pepper, secret):
    keyed = _keyed(pepper).copy()  # the pepper's keyed state copied: HMAC's key setup done once per process
    keyed.update(secret.encode())
    return keyed.digest()


@functools.lru_cache(maxsize=4)
def _keyed(pepper):
    return hmac.new(pepper.encode(), digestmod=hashlib.sha256)


def secret_matches(pepper, secret, stored_hash):
    """Constant time, and the same work whether or not a key was found (`stored_hash` None)."""
    return hmac.compare_digest(hash_secret(pepper, secret), stored_hash or _DUMMY_HASH) and stored_hash is not None


def masked(mode, key_id):
    return f"ehr_{mode}_{key_id[:4]}{'*' * 12}"


def key_label(key):
    """How people read a key: the name its owner gave it, or (a key without one) its masked id."""
    return key.name or masked(key.mode, key.key_id)


def bearer_token(authorization):
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
