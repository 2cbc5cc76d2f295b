"""Authenticator apps: the window of one step either side, a code accepted once, the codes people type, and the
URI an app enrols from (codes computed by pyotp itself and by RFC 6238's own test vector)."""

import datetime
from urllib.parse import parse_qs, unquote, urlsplit

import pyotp
import pytest
from zope.interface.verify import verifyObject

from clinicrecords.identity.interfaces import IAuthenticatorApps
from clinicrecords.identity.totp import AuthenticatorApps, normal_code

NOW = datetime.datetime(2026, 11, 26, 9, 30, 10, tzinfo=datetime.UTC)
STEP = int(NOW.timestamp()) // 30


@pytest.fixture
def apps():
    return AuthenticatorApps(clock=lambda: NOW)


@pytest.fixture
def secret(apps):
    return apps.new_secret()


def code_at(secret, seconds_from_now):
    return pyotp.TOTP(secret).at(NOW + datetime.timedelta(seconds=seconds_from_now))


@pytest.mark.parametrize("offset_steps", [-1, 0, 1])
def test_the_step_before_now_and_after_are_accepted_and_named(apps, secret, offset_steps):
    assert apps.verify(secret, code_at(secret, 30 * offset_steps)) == STEP + offset_steps


@pytest.mark.parametrize("offset_steps", [-2, 2, -3, 3])
def test_two_steps_away_is_refused(apps, secret, offset_steps):
    code = code_at(secret, 30 * offset_steps)
    assert code not in {code_at(secret, -30), code_at(secret, 0), code_at(secret, 30)}  # no accidental twin
    assert apps.verify(secret, code) is None


def test_the_window_follows_the_clock_it_is_given(apps, secret):
    later = NOW + datetime.timedelta(minutes=5)
    code = pyotp.TOTP(secret).at(later)
    assert apps.verify(secret, code) is None
    assert apps.verify(secret, code, now=later) == STEP + 10


def test_rfc_6238_test_vector_at_59_seconds():
    # RFC 6238, Appendix B: the ASCII key "12345678901234567890", T = 1, SHA-1, 8 digits 94287082.
    apps = AuthenticatorApps(clock=lambda: datetime.datetime(1970, 1, 1, 0, 0, 59, tzinfo=datetime.UTC))
    secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert apps.current_step() == 1
    assert apps.verify(secret, "287082") == 1  # the vector's last six digits, as a 6-digit app shows them


def test_a_code_is_accepted_once(apps, secret):
    code = code_at(secret, 0)
    step = apps.verify(secret, code)
    assert step == STEP
    assert apps.verify(secret, code, last_used_step=step) is None


def test_a_code_of_the_window_older_than_the_last_used_one_is_refused(apps, secret):
    newest = apps.verify(secret, code_at(secret, 30))
    assert newest == STEP + 1
    assert apps.verify(secret, code_at(secret, 0), last_used_step=newest) is None
    assert apps.verify(secret, code_at(secret, -30), last_used_step=newest) is None


def test_a_newer_code_is_accepted_after_an_older_one(apps, secret):
    older = apps.verify(secret, code_at(secret, -30))
    assert older == STEP - 1
    assert apps.verify(secret, code_at(secret, 0), last_used_step=older) == STEP
    assert apps.verify(secret, code_at(secret, 30), last_used_step=STEP) == STEP + 1


def test_the_code_of_the_next_time_is_accepted_once_its_step_comes_again_only_if_newer(apps, secret):
    step = apps.verify(secret, code_at(secret, 0))
    thirty_seconds_later = NOW + datetime.timedelta(seconds=30)
    assert apps.verify(secret, code_at(secret, 0), last_used_step=step, now=thirty_seconds_later) is None
    assert apps.verify(secret, code_at(secret, 30), last_used_step=step, now=thirty_seconds_later) == STEP + 1


def test_another_secrets_code_is_refused(apps, secret):
    other = apps.new_secret()
    assert other != secret
    code = code_at(other, 0)
    if code not in {code_at(secret, -30), code_at(secret, 0), code_at(secret, 30)}:
        assert apps.verify(secret, code) is None


@pytest.mark.parametrize("typed", ["{} {}", " {}{} ", "{}\t{}", "{}\u00a0{}"])
def test_spaces_are_taken_out(apps, secret, typed):
    code = code_at(secret, 0)
    assert apps.verify(secret, typed.format(code[:3], code[3:])) == STEP


@pytest.mark.parametrize("typed", ["", None, "12345", "1234567", "12345a", "123-456", "+12345", "-12345",
                                   "１２３４５６", "١٢٣٤٥٦", "123456\x00", "12.345"])
def test_anything_but_six_digits_is_refused(apps, secret, typed):
    assert normal_code(typed) is None
    assert apps.verify(secret, typed) is None


def test_a_correct_code_with_a_letter_in_it_is_refused(apps, secret):
    code = code_at(secret, 0)
    assert apps.verify(secret, code[:5] + "O") is None
    assert apps.verify(secret, code + "x") is None


def test_new_secrets_are_160_bits_of_base32_and_differ():
    secrets = {AuthenticatorApps.new_secret() for _ in range(20)}
    assert len(secrets) == 20
    for secret in secrets:
        assert len(secret) == 32 and set(secret) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        assert len(pyotp.TOTP(secret).byte_secret()) == 20


def test_the_provisioning_uri_names_the_issuer_and_the_email(apps, secret):
    uri = apps.provisioning_uri(secret, "ana.lima@example.com")
    parts = urlsplit(uri)
    assert (parts.scheme, parts.netloc) == ("otpauth", "totp")
    assert unquote(parts.path) == "/Clinic Records:ana.lima@example.com"
    query = {name: values[0] for name, values in parse_qs(parts.query).items()}
    assert query == {"secret": secret, "issuer": "Clinic Records"}  # SHA-1, 6 digits, 30 s: the defaults
    parsed = pyotp.parse_uri(uri)
    assert parsed.secret == secret and parsed.issuer == "Clinic Records" and parsed.name == "ana.lima@example.com"


def test_the_uri_escapes_what_an_email_may_hold(apps, secret):
    uri = apps.provisioning_uri(secret, "a+b&c=d?@example.com")
    assert "&c=" not in uri and "?@" not in uri
    assert pyotp.parse_uri(uri).name == "a+b&c=d?@example.com"


def test_it_offers_what_its_interface_declares(apps):
    assert verifyObject(IAuthenticatorApps, apps)
