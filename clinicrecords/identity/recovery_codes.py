"""Recovery codes: ten single-use codes shown once at enrolment, each `xxxxx-xxxxx` from Crockford's base32
alphabet (no i, l, o, u: nothing to confuse), 50 random bits.

Stored hashed: HMAC-SHA-256 keyed with a pepper the caller passes (the one API keys are hashed with,
`secrets.key_pepper`), over a random salt of the code's own and the code. A copy of the table alone gives
nothing to try; with the pepper too, each code must be searched alone (ASVS 2.6.2: under 112 bits, a unique
salt and an approved hash). A keyed fast hash rather than argon2: the codes are random, not chosen by people,
and verifying compares against every stored code of the account, which at argon2's cost would be seconds of
CPU per attempt.

What is typed is read without regard to case, spaces or dashes, and i/l as 1, o as 0. `match` compares with
every stored code (in constant time each, never stopping early) and answers which one was used, so the caller
marks that one used.
"""

import base64
import hashlib
import hmac
import re
import secrets

from zope.interface import implementer

from clinicrecords.identity.interfaces import IRecoveryCodes

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
COUNT = 10
CHARACTERS = 10  # 5 bits each: 50 bits
SALT_BYTES = 16
VERSION = "v1"
_PURPOSE = b"clinicrecords recovery code\x00"
_READ_AS = str.maketrans({"i": "1", "l": "1", "o": "0"})
_LEAVE_OUT = re.compile(r"[\s\-\u2010-\u2015\u2212]+")


def normal_recovery_code(text):
    """The code as its ten characters, or None when what was typed cannot be one."""
    code = _LEAVE_OUT.sub("", (text or "").lower()).translate(_READ_AS)
    if len(code) != CHARACTERS or not set(code) <= set(ALPHABET):
        return None
    return code


def _b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@implementer(IRecoveryCodes)
class RecoveryCodes:
    def __init__(self, pepper):
        if not pepper:
            raise ValueError("recovery codes need a pepper")
        self._key = hmac.new(pepper.encode() if isinstance(pepper, str) else pepper, _PURPOSE,
                             hashlib.sha256).digest()

    @staticmethod
    def new_code():
        code = "".join(secrets.choice(ALPHABET) for _ in range(CHARACTERS))
        return f"{code[:5]}-{code[5:]}"

    def new_set(self):
        """(codes to show once, their hashes to store), in the same order."""
        codes = []
        while len(codes) < COUNT:
            code = self.new_code()
            if code not in codes:
                codes.append(code)
        return codes, [self.hash(code) for code in codes]

    def hash(self, code, salt=None):
        normal = normal_recovery_code(code)
        if normal is None:
            raise ValueError("not a recovery code")
        salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
        return f"{VERSION}:{_b64(salt)}:{_b64(self._mac(salt, normal))}"

    def match(self, typed, stored_hashes):
        """The index in `stored_hashes` of the code typed, or None. Entries that are None (codes already used)
        never match."""
        normal = normal_recovery_code(typed)
        if normal is None:
            return None
        found = None
        for index, stored in enumerate(stored_hashes):
            parsed = _parse(stored)
            if parsed is None:
                continue
            salt, mac = parsed
            if hmac.compare_digest(self._mac(salt, normal), mac) and found is None:
                found = index
        return found

    def _mac(self, salt, normal):
        return hmac.new(self._key, salt + normal.encode(), hashlib.sha256).digest()


def _parse(stored):
    """(salt, mac) of a stored hash, or None for an entry that is no stored hash (a used code's None)."""
    parts = (stored or "").split(":")
    if len(parts) != 3 or parts[0] != VERSION:
        return None
    try:
        return _unb64(parts[1]), _unb64(parts[2])
    except ValueError:
        return None
