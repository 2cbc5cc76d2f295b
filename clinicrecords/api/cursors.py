"""Opaque, signed list cursors. A cursor names the position after which the next page starts, the list it
belongs to (route and caller), and when it expires. Tampered, foreign or expired cursors are a 400."""

import base64
import datetime
import hashlib
import hmac
import json
import re
import time
import uuid

from clinicrecords.api.problems import invalid

CURSOR_LIFETIME_SECONDS = 24 * 3600
# The application's CursorSigner (keyed with `secrets.cursor`), kept in the registry by clinicrecords.api.
CURSOR_SIGNER = "api.cursor_signer"
# What `sign` writes (base64url body, a dot, base64url signature); the OpenAPI document states it for
# `starting_after`, and anything else is refused before it is decoded.
CURSOR_PATTERN = r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$"
NOT_A_CURSOR = "Not a cursor of this list, or expired: use next_cursor as given."


def _encode_value(value):
    if isinstance(value, datetime.datetime):
        return {"dt": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"d": value.isoformat()}
    if isinstance(value, uuid.UUID):
        return {"u": str(value)}
    return {"v": value}


def _decode_value(tagged):
    (tag, raw), = tagged.items()
    return {"dt": datetime.datetime.fromisoformat, "d": datetime.date.fromisoformat, "u": uuid.UUID,
            "v": lambda v: v}[tag](raw)


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class CursorSigner:
    def __init__(self, secret):
        self.secret = secret.encode()

    def subkey(self, purpose):
        """32 bytes of key for `purpose` (bytes) drawn from this secret: another use of it (the FHIR search's
        encrypted cursor) never shares a key with the list cursors' signatures."""
        return hmac.new(self.secret, b"subkey\0" + purpose, hashlib.sha256).digest()

    def _mac(self, payload):
        return hmac.new(self.secret, payload, hashlib.sha256).digest()[:16]

    def sign(self, scope, position, now=None):
        body = json.dumps({"s": scope, "p": [_encode_value(v) for v in position],
                           "e": int((now or time.time()) + CURSOR_LIFETIME_SECONDS)},
                          separators=(",", ":")).encode()
        return f"{_b64(body)}.{_b64(self._mac(body))}"

    def verify(self, token, scope, now=None):
        """The position a cursor names, or a 400 invalid_request pointing at `starting_after`."""
        try:
            if not re.fullmatch(CURSOR_PATTERN, token):
                raise ValueError("shape")
            body_part, mac_part = token.split(".")
            body = _unb64(body_part)
            if not hmac.compare_digest(self._mac(body), _unb64(mac_part)):
                raise ValueError("signature")
            payload = json.loads(body)
            if payload["s"] != scope:
                raise ValueError("foreign")
            if payload["e"] < (now or time.time()):
                raise ValueError("expired")
            return tuple(_decode_value(v) for v in payload["p"])
        except (ValueError, KeyError, TypeError, AttributeError):
            raise invalid([{"pointer": "/starting_after", "location": "query",
                            "message": NOT_A_CURSOR}],
                          "The cursor is not valid.") from None
