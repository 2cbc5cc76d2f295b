"""Authenticator apps (TOTP, RFC 6238, with pyotp): SHA-1, 6 digits, 30 s steps, the parameters every app
reads from the otpauth:// URI.

A code is good for its own time step and one step either side (a phone's clock a little off, a code typed as
it changes). `verify` answers the step it matched; the caller stores it as the factor's last used step and
passes it back next time, so a code is accepted once: a step at or before the last used one is refused,
which also refuses an older code of the window once a newer one was used.
"""

import hmac
import re
from dataclasses import dataclass

import pyotp

from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.identity.interfaces import IAuthenticatorApps
from clinicrecords.identity.qr import qr_svg, secret_for_typing

ISSUER = "Clinic Records"
DIGITS = 6
STEP_SECONDS = 30
DRIFT_STEPS = 1
# 32 base32 characters: 160 bits, the HMAC-SHA-1 key length RFC 4226 recommends.
SECRET_LENGTH = 32

_SPACES = re.compile(r"\s+")
_CODE = re.compile(rf"[0-9]{{{DIGITS}}}")


def normal_code(text):
    """The code as digits, or None when it is not six digits once spaces are taken out ("123 456" is
    fine; letters, signs and other lengths are not)."""
    code = _SPACES.sub("", text or "")
    return code if _CODE.fullmatch(code) else None


@dataclass(frozen=True)
class Enrolment:
    """What the enrolment page shows: the QR code (inline SVG) and the same secret as text to type."""

    uri: str
    qr_svg: str
    secret_text: str


@implementer(IAuthenticatorApps)
class AuthenticatorApps:
    """New secrets, the URI an app enrols from, and verification. `clock` answers an aware datetime (the
    service's clock; tests pass their own)."""

    def __init__(self, clock=clock.now, issuer=ISSUER):
        self.clock = clock
        self.issuer = issuer

    @staticmethod
    def new_secret():
        return pyotp.random_base32(SECRET_LENGTH)

    def provisioning_uri(self, secret, email):
        """otpauth://totp/Clinic%20Records:<email>?secret=...&issuer=Clinic%20Records. SHA-1, 6 digits and
        30 s are the format's defaults, so the URI leaves them out (the shorter the URI, the smaller the QR
        code)."""
        return _totp(secret).provisioning_uri(name=email, issuer_name=self.issuer)

    def enrolment(self, secret, email):
        uri = self.provisioning_uri(secret, email)
        return Enrolment(uri=uri, qr_svg=qr_svg(uri), secret_text=secret_for_typing(secret))

    def current_step(self, now=None):
        """RFC 6238's T: whole 30 s steps since the Unix epoch."""
        return int((now or self.clock()).timestamp()) // STEP_SECONDS

    def verify(self, secret, code, last_used_step=None, now=None):
        """The time step `code` belongs to (the current one or one either side), or None when it is
        malformed, wrong, or of a step at or before `last_used_step`. Store the answer as the new last used
        step."""
        code = normal_code(code)
        if code is None:
            return None
        totp = _totp(secret)
        current = self.current_step(now)
        # The newest step first: a code that happens to match two steps counts as the later one.
        for step in range(current + DRIFT_STEPS, current - DRIFT_STEPS - 1, -1):
            if last_used_step is not None and step <= last_used_step:
                break
            if hmac.compare_digest(totp.generate_otp(step).encode(), code.encode()):
                return step
        return None


def _totp(secret):
    return pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS)
