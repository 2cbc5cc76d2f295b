"""Passkeys: the four ceremonies verified for real against a software authenticator (an EC P-256 key, authenticator
data, client data and a "none" attestation built in the test), including the refusals that matter: another
origin, another rp id, a replayed challenge, a sign count that went backwards, another key's signature, a
password-free sign-in without user verification, another account's user handle."""

import base64
import json

import cbor2
import pytest
from zope.interface.verify import verifyObject

from clinicrecords.identity import webauthn_ceremonies
from clinicrecords.identity.interfaces import IPasskeyCeremonies
from clinicrecords.identity.services import (KnownPasskey, PasskeyRefused, RelyingParty, authentication_options,
                                             credential_id_of, new_user_handle, registration_options,
                                             relying_party, user_handle_of, verify_authentication,
                                             verify_registration)
from clinicrecords.settings import PortalSettings, SettingsError
from tests.identity.software_authenticator import SoftwareAuthenticator, b64url

RP = RelyingParty(id="localhost", origin="http://localhost:6543")
EMAIL = "ana.lima@example.com"


def registered(authenticator, rp=RP, user_handle=None, existing=()):
    user_handle = user_handle or new_user_handle()
    ceremony = registration_options(rp, user_handle=user_handle, user_name=EMAIL, existing=existing)
    return verify_registration(rp, response=authenticator.create(ceremony.options_json, rp.origin),
                               challenge=ceremony.challenge)


@pytest.fixture
def authenticator():
    return SoftwareAuthenticator()


@pytest.fixture
def passkey(authenticator):
    return registered(authenticator)


def signed_in(authenticator, passkey, rp=RP, alone=False, **lie):
    ceremony = authentication_options(rp, allowed=None if alone else [KnownPasskey(passkey.credential_id)])
    origin = lie.pop("origin", rp.origin)
    response = authenticator.get(ceremony.options_json, origin, **lie)
    return verify_authentication(rp, response=response, challenge=ceremony.challenge, public_key=passkey.public_key,
                                 sign_count=passkey.sign_count, user_verification_required=alone,
                                 user_handle=authenticator.user_handle)


# Registration

def test_registration_options(authenticator):
    handle = new_user_handle()
    existing = [KnownPasskey(b"\x01" * 16, ("usb", "nfc", "carrier-pigeon")), KnownPasskey(b"\x02" * 32)]
    ceremony = registration_options(RP, user_handle=handle, user_name=EMAIL, existing=existing)
    options = json.loads(ceremony.options_json)
    assert options["rp"] == {"id": "localhost", "name": "Clinic Records"}
    assert options["user"] == {"id": b64url(handle), "name": EMAIL, "displayName": EMAIL}
    assert options["challenge"] == b64url(ceremony.challenge) and len(ceremony.challenge) >= 32
    assert options["authenticatorSelection"] == {"residentKey": "preferred", "requireResidentKey": False,
                                                 "userVerification": "preferred"}
    assert options["attestation"] == "none"
    assert {p["alg"] for p in options["pubKeyCredParams"]} >= {-7, -8, -257}
    assert options["timeout"] == 300000
    assert options["excludeCredentials"] == [
        {"type": "public-key", "id": b64url(b"\x01" * 16), "transports": ["usb", "nfc"]},
        {"type": "public-key", "id": b64url(b"\x02" * 32)}]


def test_each_ceremony_has_its_own_challenge():
    handle = new_user_handle()
    challenges = {registration_options(RP, user_handle=handle, user_name=EMAIL).challenge for _ in range(5)}
    challenges |= {authentication_options(RP).challenge for _ in range(5)}
    assert len(challenges) == 10


def test_user_handles_are_random_and_not_the_email():
    handles = {new_user_handle() for _ in range(10)}
    assert len(handles) == 10 and all(len(handle) >= 32 for handle in handles)
    assert all(EMAIL.encode() not in handle for handle in handles)


def test_a_registration_verifies_and_gives_what_to_store(authenticator):
    passkey = registered(authenticator)
    assert passkey.credential_id == authenticator.credential_id
    assert passkey.public_key == authenticator.cose_public_key()
    assert passkey.sign_count == 0 and passkey.user_verified
    assert passkey.transports == ("internal", "hybrid")
    assert passkey.aaguid == "00000000-0000-0000-0000-000000000000"


def _registration(authenticator, rp=RP, **lie):
    ceremony = registration_options(rp, user_handle=new_user_handle(), user_name=EMAIL)
    origin = lie.pop("origin", rp.origin)
    challenge = lie.pop("expected_challenge", ceremony.challenge)
    return authenticator.create(ceremony.options_json, origin, **lie), challenge


# Each lie, and the words of the check that refuses it (so no refusal passes for another reason).
REFUSED_FOR = {"origin": "origin", "rp_id": "RP ID hash", "challenge": "challenge was not expected",
               "client_type": "client data type"}


@pytest.mark.parametrize("lie", [
    {"origin": "http://localhost:6544"},
    {"origin": "https://localhost:6543"},
    {"origin": "https://evil.example"},
    {"rp_id": "evil.example"},
    {"rp_id": "localhost.evil.example"},
    {"challenge": b"an earlier challenge, replayed.."},
    {"client_type": "webauthn.get"},
])
def test_a_registration_answer_that_lies_is_refused(authenticator, lie):
    response, challenge = _registration(authenticator, **lie)
    with pytest.raises(PasskeyRefused, match=REFUSED_FOR[next(iter(lie))]):
        verify_registration(RP, response=response, challenge=challenge)


def test_a_registration_answer_replayed_for_the_next_ceremony_is_refused(authenticator):
    response, challenge = _registration(authenticator)
    verify_registration(RP, response=response, challenge=challenge)
    later = registration_options(RP, user_handle=new_user_handle(), user_name=EMAIL)
    with pytest.raises(PasskeyRefused):
        verify_registration(RP, response=response, challenge=later.challenge)


@pytest.mark.parametrize("response", ["", "not json", "[]", "{}", json.dumps({"id": "x", "rawId": "y"}),
                                      "{" * 100_000, None, {"id": "x"}])
def test_what_is_no_registration_answer_is_refused(response):
    with pytest.raises(PasskeyRefused):
        verify_registration(RP, response=response, challenge=b"c" * 32)


def test_a_registration_with_an_attestation_statement_under_none_is_refused(authenticator):
    response, challenge = _registration(authenticator)
    answer = json.loads(response)
    attestation = cbor2.loads(base64.urlsafe_b64decode(answer["response"]["attestationObject"] + "=="))
    attestation["attStmt"] = {"sig": b"forged"}
    answer["response"]["attestationObject"] = b64url(cbor2.dumps(attestation))
    with pytest.raises(PasskeyRefused, match="unexpected attestation statement"):
        verify_registration(RP, response=json.dumps(answer), challenge=challenge)


# Authentication

def test_second_step_options_name_the_accounts_passkeys_and_prefer_verification(passkey):
    ceremony = authentication_options(RP, allowed=[KnownPasskey(passkey.credential_id, passkey.transports)])
    options = json.loads(ceremony.options_json)
    assert options["rpId"] == "localhost" and options["challenge"] == b64url(ceremony.challenge)
    assert options["allowCredentials"] == [{"type": "public-key", "id": b64url(passkey.credential_id),
                                            "transports": ["internal", "hybrid"]}]
    assert options["userVerification"] == "preferred"


def test_password_free_options_name_no_passkey_and_require_verification():
    options = json.loads(authentication_options(RP).options_json)
    assert options["allowCredentials"] == [] and options["userVerification"] == "required"


def test_a_sign_in_verifies_and_the_count_grows(authenticator, passkey):
    use = signed_in(authenticator, passkey)
    assert use.credential_id == passkey.credential_id and use.sign_count == 1 and use.user_verified


def test_a_password_free_sign_in_with_the_passkey_alone(authenticator, passkey):
    ceremony = authentication_options(RP)
    response = authenticator.get(ceremony.options_json, RP.origin)
    assert credential_id_of(response) == passkey.credential_id  # which stored passkey to check it with
    assert user_handle_of(response) == authenticator.user_handle
    use = verify_authentication(RP, response=response, challenge=ceremony.challenge, public_key=passkey.public_key,
                                sign_count=passkey.sign_count, user_verification_required=True,
                                user_handle=authenticator.user_handle)
    assert use.user_verified


def test_a_password_free_sign_in_without_user_verification_is_refused(passkey):
    authenticator = SoftwareAuthenticator(verifies_user=False)
    passkey = registered(authenticator)
    assert not passkey.user_verified
    assert signed_in(authenticator, passkey).sign_count == 1  # a second step needs presence only
    with pytest.raises(PasskeyRefused, match="User verification is required"):
        signed_in(authenticator, passkey, alone=True)


@pytest.mark.parametrize("lie", [
    {"origin": "http://localhost:6544"},
    {"origin": "https://evil.example"},
    {"rp_id": "evil.example"},
    {"challenge": b"an earlier challenge, replayed.."},
    {"client_type": "webauthn.create"},
])
def test_a_sign_in_answer_that_lies_is_refused(authenticator, passkey, lie):
    with pytest.raises(PasskeyRefused, match=REFUSED_FOR[next(iter(lie))]):
        signed_in(authenticator, passkey, **lie)


def test_a_sign_in_answer_replayed_for_the_next_ceremony_is_refused(authenticator, passkey):
    first = authentication_options(RP, allowed=[KnownPasskey(passkey.credential_id)])
    response = authenticator.get(first.options_json, RP.origin)
    use = verify_authentication(RP, response=response, challenge=first.challenge, public_key=passkey.public_key,
                                sign_count=0, user_verification_required=False)
    second = authentication_options(RP, allowed=[KnownPasskey(passkey.credential_id)])
    with pytest.raises(PasskeyRefused, match="challenge was not expected"):
        verify_authentication(RP, response=response, challenge=second.challenge, public_key=passkey.public_key,
                              sign_count=use.sign_count, user_verification_required=False)
    with pytest.raises(PasskeyRefused, match="sign count"):  # the same challenge again: the count moved past it
        verify_authentication(RP, response=response, challenge=first.challenge, public_key=passkey.public_key,
                              sign_count=use.sign_count, user_verification_required=False)


@pytest.mark.parametrize("stored, answered", [(7, 5), (7, 7), (7, 0)])
def test_a_sign_count_that_did_not_grow_is_refused(authenticator, passkey, stored, answered):
    ceremony = authentication_options(RP, allowed=[KnownPasskey(passkey.credential_id)])
    response = authenticator.get(ceremony.options_json, RP.origin, sign_count=answered)
    with pytest.raises(PasskeyRefused, match="sign count"):
        verify_authentication(RP, response=response, challenge=ceremony.challenge, public_key=passkey.public_key,
                              sign_count=stored, user_verification_required=False)


def test_a_synced_passkey_that_counts_nothing_keeps_signing_in():
    authenticator = SoftwareAuthenticator(counts=False)
    passkey = registered(authenticator)
    assert [signed_in(authenticator, passkey).sign_count for _ in range(3)] == [0, 0, 0]


def test_another_keys_signature_is_refused(authenticator, passkey):
    with pytest.raises(PasskeyRefused, match="signature"):
        signed_in(authenticator, passkey, key=SoftwareAuthenticator().key)


def test_another_accounts_user_handle_is_refused(authenticator, passkey):
    with pytest.raises(PasskeyRefused, match="user handle"):
        signed_in(authenticator, passkey, alone=True, user_handle=new_user_handle())


@pytest.mark.parametrize("response", ["", "not json", "{}", json.dumps({"id": "x", "rawId": "x", "type": "public-key",
                                                                        "response": {}}), None])
def test_what_is_no_sign_in_answer_is_refused(passkey, response):
    with pytest.raises(PasskeyRefused):
        credential_id_of(response)
    with pytest.raises(PasskeyRefused):
        verify_authentication(RP, response=response, challenge=b"c" * 32, public_key=passkey.public_key,
                              sign_count=0, user_verification_required=False)


# The relying party

@pytest.mark.parametrize("portal, portal_url, rp_id, origin", [
    (PortalSettings(), "http://localhost:6543/portal", "localhost", "http://localhost:6543"),
    (PortalSettings(), "https://developers.example.com", "developers.example.com", "https://developers.example.com"),
    (PortalSettings(), "https://Developers.Example.com:8443/", "developers.example.com", "https://developers.example.com:8443"),
    (PortalSettings(webauthn_rp_id="example.com"), "https://developers.example.com", "example.com",
     "https://developers.example.com"),
    (PortalSettings(webauthn_rp_id=" Developers.Example.COM "), "https://developers.example.com",
     "developers.example.com", "https://developers.example.com"),
    (PortalSettings(webauthn_rp_id=""), "http://app.localhost:8080", "app.localhost", "http://app.localhost:8080"),
])
def test_the_relying_party_is_the_setting_or_the_portals_host(portal, portal_url, rp_id, origin):
    assert relying_party(portal, portal_url) == RelyingParty(id=rp_id, origin=origin, name="Clinic Records")


@pytest.mark.parametrize("portal, portal_url", [
    (PortalSettings(), "http://127.0.0.1:6543/portal"),
    (PortalSettings(), "https://[::1]:6543"),
    (PortalSettings(webauthn_rp_id="127.0.0.1"), "http://localhost:6543"),
    (PortalSettings(webauthn_rp_id="other.example"), "https://developers.example.com"),
    (PortalSettings(webauthn_rp_id="ample.com"), "https://developers.example.com"),
    (PortalSettings(webauthn_rp_id="developers.example.com"), "https://example.com"),
    (PortalSettings(), "http://developers.example.com"),
    (PortalSettings(), "developers.example.com"),
])
def test_a_relying_party_browsers_would_refuse_stops_with_a_setting_error(portal, portal_url):
    with pytest.raises(SettingsError):
        relying_party(portal, portal_url)


def test_the_module_offers_what_its_interface_declares():
    assert verifyObject(IPasskeyCeremonies, webauthn_ceremonies)
