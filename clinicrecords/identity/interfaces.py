"""What the identity context's building blocks offer (issue 34). The classes implementing them are built by
the caller with what they need (a clock, a pepper, the relying party) and published by `identity.services`."""

from zope.interface import Attribute, Interface


class IAuthenticatorApps(Interface):
    """TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps) for authenticator apps."""

    issuer = Attribute("the name apps show beside the code: Clinic Records")

    def new_secret():
        """A new base32 secret of 160 bits (seal it before storing: `ITotpSecretSealing`)."""

    def provisioning_uri(secret, email):
        """The otpauth:// URI an app enrols from, the account's email as its label."""

    def enrolment(secret, email):
        """An `Enrolment` for the page: `uri`, `qr_svg` (an inline SVG of the URI: no script, titled) and
        `secret_text` (the secret in groups of four, for apps that cannot scan)."""

    def current_step(now=None):
        """The time step (whole 30 s since the epoch) of `now`, or of the clock's now."""

    def verify(secret, code, last_used_step=None, now=None):
        """The time step a code matched (now's, or one either side), or None: malformed (six digits, spaces
        allowed), wrong, or of a step at or before `last_used_step`. The caller stores the step it answers as
        the new last used step, so each code is accepted once."""


class IRecoveryCodes(Interface):
    """Ten single-use recovery codes, `xxxxx-xxxxx` (50 random bits each), stored as keyed salted hashes."""

    def new_set():
        """(codes, hashes): ten new codes to show once and their hashes to store, in the same order. A new set
        replaces the whole old one."""

    def hash(code):
        """The stored form of one code: `v1:<salt>:<HMAC-SHA-256>` (base64url)."""

    def match(typed, stored_hashes):
        """The index of the stored hash the typed code matches, or None. Case, spaces and dashes do not
        matter; i and l read as 1, o as 0. Compared with every entry in constant time; None entries (codes
        used) never match. The caller marks the matched code used in the same transaction."""
