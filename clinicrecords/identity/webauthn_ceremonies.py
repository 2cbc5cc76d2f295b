"""Passkeys (WebAuthn, with py_webauthn): the four ceremonies as pure functions of what they need, so the pages
and their tests hold no WebAuthn logic.

- **Registration**: `registration_options` for `navigator.credentials.create()`, then `verify_registration` of
  the browser's answer. The user handle is random per account (`new_user_handle`, stored with the account),
  never the email; the account's passkeys are excluded, so an authenticator is not registered twice; a
  resident (discoverable) key is preferred, so a passkey can later sign in alone; user verification is
  preferred (a security key without a PIN still serves as a second factor); no attestation is asked for.
- **Authentication**: `authentication_options`, with the account's passkeys for the second step after the
  password (user verification preferred), or without any for password-free sign-in, where the authenticator
  must verify the person (required: the passkey is then both factors). `credential_id_of` and
  `user_handle_of` tell the caller which stored passkey an answer claims before `verify_authentication`
  checks it with that passkey's public key and sign count.

Every check the specification asks is the library's: the client data's type, challenge and origin, the rp id's
hash, the user present and (where required) verified flags, the signature, and a sign count that must grow
when the authenticator keeps one (synced passkeys report 0 and stay 0). The caller keeps each challenge on
the server (the session) and uses it once: an answer to an earlier challenge is refused. Refusals raise
`PasskeyRefused`, whose `reason` is for logs, not for the page.
"""

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from webauthn import (generate_authentication_options, generate_registration_options, options_to_json,
                      verify_authentication_response, verify_registration_response)
from webauthn.helpers import (generate_challenge, generate_user_handle, parse_authentication_credential_json,
                              parse_registration_credential_json)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (AttestationConveyancePreference, AuthenticatorSelectionCriteria,
                                      AuthenticatorTransport, PublicKeyCredentialDescriptor, ResidentKeyRequirement,
                                      UserVerificationRequirement)

from zope.interface import moduleProvides

from clinicrecords.identity.interfaces import IPasskeyCeremonies
from clinicrecords.settings import PortalSettings, SettingsError

moduleProvides(IPasskeyCeremonies)

RP_ID_SETTING = PortalSettings.__dataclass_fields__["webauthn_rp_id"].metadata["name"]
RP_NAME = "Clinic Records"
# The specification's advice when user verification is asked for: 5 to 10 minutes.
TIMEOUT_MS = 300_000
# Far above what an authenticator answers (a few kB): anything bigger is refused before it is parsed.
MAX_RESPONSE_CHARACTERS = 64 * 1024
_TRANSPORTS = {transport.value for transport in AuthenticatorTransport}


class PasskeyRefused(ValueError):
    """The browser's answer does not verify (or cannot be read). `reason` says why, for logs."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RelyingParty:
    """Who passkeys are registered with: `id` (a host name: passkeys are bound to it), the portal's `origin`
    (scheme://host[:port], what the browser reports) and the `name` authenticators show."""

    id: str
    origin: str
    name: str = RP_NAME


@dataclass(frozen=True)
class KnownPasskey:
    """A stored passkey, as the options name it: its credential id and the transports it reported."""

    credential_id: bytes
    transports: tuple = ()


@dataclass(frozen=True)
class Ceremony:
    """`options_json` for the page's script; `challenge` stays on the server until the answer, used once."""

    options_json: str
    challenge: bytes


@dataclass(frozen=True)
class NewPasskey:
    """What to store of a verified registration (with a name the person gives it)."""

    credential_id: bytes
    public_key: bytes
    sign_count: int
    transports: tuple
    user_verified: bool
    backed_up: bool
    aaguid: str


@dataclass(frozen=True)
class PasskeyUse:
    """A verified authentication: store `sign_count` as the passkey's new count."""

    credential_id: bytes
    sign_count: int
    user_verified: bool
    backed_up: bool


def relying_party(portal, portal_url):
    """The relying party of the portal whose public address is `portal_url`: the id from the portal's settings
    (`portal.webauthn_rp_id`, `PortalSettings`), else the portal's host name. Raises SettingsError for an IP
    address (WebAuthn refuses them), an id the portal's host is not equal to or under, or plain http anywhere but
    localhost."""
    parts = urlsplit(portal_url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host:
        raise SettingsError(f"the portal's address {portal_url!r} has no scheme and host")
    origin = f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")
    rp_id = (portal.webauthn_rp_id or "").strip().lower() or host
    if _is_ip_address(rp_id):
        raise SettingsError(f"{RP_ID_SETTING}: passkeys need a host name, not an IP address ({rp_id}); serve the "
                            "portal on a name (localhost in development) or set the setting")
    if host != rp_id and not host.endswith("." + rp_id):
        raise SettingsError(f"{RP_ID_SETTING}: {rp_id!r} must be the portal's host {host!r} or a domain it is under")
    if parts.scheme == "http" and host != "localhost" and not host.endswith(".localhost"):
        raise SettingsError(f"passkeys need the portal on https (or http on localhost), not {origin}")
    return RelyingParty(id=rp_id, origin=origin)


def _is_ip_address(host):
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def new_user_handle():
    """A random user handle (64 bytes) for an account's first passkey; store it and reuse it for the next."""
    return generate_user_handle()


def _descriptors(passkeys):
    return [PublicKeyCredentialDescriptor(
        id=passkey.credential_id,
        transports=[AuthenticatorTransport(t) for t in passkey.transports if t in _TRANSPORTS] or None)
        for passkey in passkeys]


def registration_options(rp, *, user_handle, user_name, display_name=None, existing=()):
    """Options to register a new passkey of the account (`user_handle` its random handle, `user_name` its
    email), excluding the account's `existing` passkeys (`KnownPasskey`s)."""
    challenge = generate_challenge()
    options = generate_registration_options(
        rp_id=rp.id, rp_name=rp.name, user_id=user_handle, user_name=user_name,
        user_display_name=display_name or user_name, challenge=challenge, timeout=TIMEOUT_MS,
        attestation=AttestationConveyancePreference.NONE,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.PREFERRED,
            user_verification=UserVerificationRequirement.PREFERRED),
        exclude_credentials=_descriptors(existing))
    return Ceremony(options_json=options_to_json(options), challenge=challenge)


def verify_registration(rp, *, response, challenge):
    """A `NewPasskey` from the browser's answer (the JSON text the page posts) to the registration
    `challenge`."""
    _check_size(response)
    try:
        credential = parse_registration_credential_json(response)
        verified = verify_registration_response(credential=credential, expected_challenge=challenge,
                                                expected_rp_id=rp.id, expected_origin=rp.origin)
    except (WebAuthnException, ValueError, TypeError, KeyError) as refused:
        raise PasskeyRefused(f"registration: {refused}") from None
    transports = tuple(t.value for t in credential.response.transports or ())
    return NewPasskey(credential_id=verified.credential_id, public_key=verified.credential_public_key,
                      sign_count=verified.sign_count, transports=transports,
                      user_verified=verified.user_verified, backed_up=verified.credential_backed_up,
                      aaguid=verified.aaguid)


def authentication_options(rp, *, allowed=None):
    """Options to sign in with a passkey: for the second step after the password, `allowed` is the account's
    passkeys (`KnownPasskey`s) and user verification is preferred; without `allowed` (password-free sign-in)
    the browser offers the passkeys it holds for the rp id, and user verification is required."""
    challenge = generate_challenge()
    options = generate_authentication_options(
        rp_id=rp.id, challenge=challenge, timeout=TIMEOUT_MS, allow_credentials=_descriptors(allowed or ()),
        user_verification=(UserVerificationRequirement.PREFERRED if allowed
                           else UserVerificationRequirement.REQUIRED))
    return Ceremony(options_json=options_to_json(options), challenge=challenge)


def _authentication_credential(response):
    _check_size(response)
    try:
        return parse_authentication_credential_json(response)
    except (WebAuthnException, ValueError, TypeError, KeyError) as refused:
        raise PasskeyRefused(f"authentication: {refused}") from None


def credential_id_of(response):
    """The credential id an authentication answer claims (to find the stored passkey before verifying)."""
    return _authentication_credential(response).raw_id


def user_handle_of(response):
    """The user handle a password-free answer carries (discoverable passkeys return it), or None."""
    return _authentication_credential(response).response.user_handle


def verify_authentication(rp, *, response, challenge, public_key, sign_count, user_verification_required,
                          user_handle=None):
    """A `PasskeyUse` from the browser's answer to `challenge`, checked with the stored passkey's `public_key`
    and `sign_count`. `user_verification_required`: True for password-free sign-in. `user_handle`: the
    account's handle, which an answer carrying one must match."""
    credential = _authentication_credential(response)
    if user_handle is not None and credential.response.user_handle not in (None, user_handle):
        raise PasskeyRefused("authentication: the answer's user handle is another account's")
    try:
        verified = verify_authentication_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp.id, expected_origin=rp.origin,
            credential_public_key=public_key, credential_current_sign_count=sign_count,
            require_user_verification=user_verification_required)
    except (WebAuthnException, ValueError, TypeError, KeyError) as refused:
        raise PasskeyRefused(f"authentication: {refused}") from None
    return PasskeyUse(credential_id=verified.credential_id, sign_count=verified.new_sign_count,
                      user_verified=verified.user_verified, backed_up=verified.credential_backed_up)


def _check_size(response):
    if not isinstance(response, str):
        raise PasskeyRefused("the answer is not JSON text")
    if len(response) > MAX_RESPONSE_CHARACTERS:
        raise PasskeyRefused("the answer is too large")
