"""Webhook signing secrets at rest: AES-256-GCM (the `cryptography` package) under keys from the setting
`secrets.webhook_keys` (production: `env:CLINICRECORDS_WEBHOOK_KEYS`).

The setting lists `key_id:base64url(32 bytes)` entries separated by spaces or commas. The first key seals
new secrets; every listed key opens. A sealed value names its key: `v1:<key_id>:<base64url(nonce ||
ciphertext || tag)>`, so keys can be rotated: put the new key first, restart, run `webhook reseal-secrets`,
then drop the old key. The endpoint's id is the associated data, so a sealed secret copied onto another
endpoint's row does not open there.

Other contexts seal their own secrets with the same keys (no other key setting) through `for_purpose`
(`events.services.secret_sealer`): the associated data is then a label, the purpose's name and the
subject's id, never the 16 bytes of an id alone, so a value sealed for one purpose never opens as a webhook
secret or as another purpose's, even for the same id.
"""

import base64
import binascii
import os
import re

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from clinicrecords.settings import SettingsError

SETTING = "secrets.webhook_keys"
VERSION = "v1"
KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
PURPOSE = re.compile(r"[a-z][a-z0-9_.-]{2,63}")
NONCE_BYTES = 12
_PURPOSE_LABEL = b"clinicrecords sealed secret\x00"


class SecretBoxError(RuntimeError):
    """A sealed secret that no configured key opens (unknown key id, or tampered with)."""


def _b64encode(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_key_entry(key_id):
    """A fresh `key_id:key` entry for the setting (`clinicrecords-admin ... webhook new-key`)."""
    if not KEY_ID.fullmatch(key_id):
        raise ValueError("a key id is 1 to 32 letters, digits, '-' or '_'")
    return f"{key_id}:{_b64encode(AESGCM.generate_key(bit_length=256))}"


class SecretBox:
    def __init__(self, keys):
        """`keys`: [(key_id, 32 bytes)], the sealing key first."""
        if not keys:
            raise SettingsError(f"{SETTING} needs at least one key")
        self._keys = {key_id: AESGCM(key) for key_id, key in keys}
        self.current_key_id = keys[0][0]

    @classmethod
    def from_setting(cls, text):
        if not text or not str(text).strip():
            raise SettingsError(f"setting {SETTING!r} is required (key_id:base64url-32-bytes, newest first)")
        keys = []
        for entry in re.split(r"[\s,]+", str(text).strip()):
            key_id, _, encoded = entry.partition(":")
            if not KEY_ID.fullmatch(key_id) or not encoded:
                raise SettingsError(f"{SETTING}: each entry is key_id:base64url-key (key ids: [A-Za-z0-9_-]{{1,32}})")
            try:
                key = _b64decode(encoded)
            except (binascii.Error, ValueError):
                key = b""
            if len(key) != 32:
                raise SettingsError(f"{SETTING}: key {key_id!r} must be 32 bytes in base64url")
            if key_id in dict(keys):
                raise SettingsError(f"{SETTING}: key id {key_id!r} is listed twice")
            keys.append((key_id, key))
        return cls(keys)

    def seal(self, secret, endpoint_id):
        return self._seal(secret, endpoint_id.bytes)

    def open(self, sealed, endpoint_id):
        return self._open(sealed, endpoint_id.bytes,
                          "a sealed webhook secret does not open: wrong key or altered value")

    def needs_reseal(self, sealed):
        return key_id_of(sealed)[1] != self.current_key_id

    def for_purpose(self, purpose):
        """A `PurposeSealer`: these keys, associated data of the purpose's own."""
        return PurposeSealer(self, purpose)

    def _seal(self, secret, associated_data):
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._keys[self.current_key_id].encrypt(nonce, secret.encode(), associated_data)
        return f"{VERSION}:{self.current_key_id}:{_b64encode(nonce + sealed)}"

    def _open(self, sealed, associated_data, refusal):
        version, key_id, payload = key_id_of(sealed)
        aead = self._keys.get(key_id)
        if version != VERSION or aead is None:
            raise SecretBoxError(f"no configured key {key_id!r} opens this secret (is {SETTING} complete?)")
        try:
            data = _b64decode(payload)
            return aead.decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], associated_data).decode()
        except (InvalidTag, binascii.Error, ValueError):
            raise SecretBoxError(refusal) from None


class PurposeSealer:
    """Seals another context's secrets (a TOTP secret: purpose "identity.totp_secret") under the webhook keys,
    bound to the purpose and to the id of what it belongs to (`subject_id`, a UUID). Provides
    `events.interfaces.ISecretSealer` (declared in `events.services`)."""

    def __init__(self, box, purpose):
        if not PURPOSE.fullmatch(purpose or ""):
            raise ValueError("a purpose is 3 to 64 of a-z, 0-9, '_', '.', '-', starting with a letter")
        self._box = box
        self.purpose = purpose

    def seal(self, secret, subject_id):
        return self._box._seal(secret, self._associated_data(subject_id))

    def open(self, sealed, subject_id):
        return self._box._open(sealed, self._associated_data(subject_id), f"a sealed {self.purpose} does not open: "
                               "wrong key, purpose or subject, or altered value")

    def needs_reseal(self, sealed):
        return self._box.needs_reseal(sealed)

    def _associated_data(self, subject_id):
        return _PURPOSE_LABEL + self.purpose.encode() + b"\x00" + subject_id.bytes


def key_id_of(sealed):
    """(version, key id, payload) of a sealed value."""
    parts = sealed.split(":", 2)
    if len(parts) != 3:
        raise SecretBoxError("not a sealed secret")
    return tuple(parts)

