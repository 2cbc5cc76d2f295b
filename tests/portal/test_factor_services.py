"""The second factors' services without a web request (decision 0096; in tests/portal, whose tests roll back, as
its rows carry a moved clock): `FactorService` and `SignInSteps` built over an operator's request's real
session, the real sealer, mail and audit trail, with a clock the test moves: a code accepted once within one
step of drift, the last step kept across requests, recovery codes used once and voided by a new set, what
counts as a factor, the workspace rule, and a pending sign-in's lifetime and throttle."""

import datetime

import pyotp
import pytest
from sqlalchemy import select

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.factors import FactorService
from clinicrecords.identity.models import Account, AuthenticatorApp
from clinicrecords.identity.recovery_codes import RecoveryCodes
from clinicrecords.identity.second_step import LIFETIME, SignInSteps
from clinicrecords.identity.services import IAuditTrail
from clinicrecords.identity.throttle import CodeRules, ThrottleRules
from clinicrecords.identity.totp import AuthenticatorApps
from clinicrecords.mail.interfaces import IMail
from clinicrecords.portal.accounts.factors import totp_sealer
from tests.portal.helpers import unique_email

T0 = datetime.datetime(2026, 3, 2, 9, 0, 5, tzinfo=datetime.UTC)


class Clock:
    def __init__(self):
        self.at = T0

    def __call__(self):
        return self.at

    def step(self, steps=1):
        self.at += datetime.timedelta(seconds=30 * steps)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def request_(world):
    with world.request() as request:
        yield request


def _service(request, clock):
    return FactorService(request.db, totp_sealer(request.registry), RecoveryCodes(request.registry.settings[
        "secrets.key_pepper"]), request.find_service(IMail), request.find_service(IAuditTrail),
        apps=AuthenticatorApps(clock=clock), clock=clock)


def _account(request):
    account = Account(email=unique_email("factors"), password_hash="x")
    request.db.add(account)
    request.db.flush()
    return account.id


def _secret(request, service, account_id):
    app = request.db.scalar(select(AuthenticatorApp).where(AuthenticatorApp.account_id == account_id))
    return totp_sealer(request.registry).open(app.sealed_secret, app.id)


def _code(secret, clock, steps=0):
    return pyotp.TOTP(secret).at(clock() + datetime.timedelta(seconds=30 * steps))


def _enrolled(request, clock):
    service, account_id = _service(request, clock), _account(request)
    service.start_app(account_id)
    secret = _secret(request, service, account_id)
    codes = service.confirm_app(account_id, _code(secret, clock))
    return service, account_id, secret, codes


def test_an_app_counts_once_confirmed_and_brings_ten_codes(request_, clock):
    service, account_id = _service(request_, clock), _account(request_)
    assert not service.has_second_factor(account_id)
    service.start_app(account_id)
    assert service.factors(account_id).app_pending and not service.has_second_factor(account_id)
    enrolment = service.app_enrolment(account_id)
    assert enrolment.qr_svg.startswith("<svg") and len(enrolment.secret_text.replace(" ", "")) == 32
    secret = _secret(request_, service, account_id)
    with pytest.raises(FieldErrors) as wrong:
        service.confirm_app(account_id, _code(secret, clock, 2))  # two steps ahead: outside the window
    assert wrong.value.errors == {"code": "The code is not right: type the 6 digits your app shows now"}
    codes = service.confirm_app(account_id, _code(secret, clock, -1))
    assert len(codes) == 10 and service.has_second_factor(account_id)
    assert service.factors(account_id).recovery_codes_left == 10
    with pytest.raises(FieldErrors):
        service.start_app(account_id)  # one app: remove it first


def test_a_code_is_accepted_once_and_never_an_older_one(request_, clock):
    service, account_id, secret, _ = _enrolled(request_, clock)
    assert service.verify_code(account_id, _code(secret, clock)) is None  # the confirming code: used
    assert service.verify_code(account_id, _code(secret, clock, 1)) == "app"
    assert service.verify_code(account_id, _code(secret, clock, 1)) is None  # replayed
    clock.step()
    assert service.verify_code(account_id, _code(secret, clock, -1)) is None  # older than the last used
    clock.step(3)
    assert service.verify_code(account_id, _code(secret, clock, -1)) == "app"  # one step late: drift
    assert service.verify_code(account_id, _code(secret, clock, 2)) is None
    assert service.verify_code(account_id, "12345") is None and service.verify_code(account_id, "") is None


def test_recovery_codes_are_used_once_and_a_new_set_voids_the_old(request_, clock):
    service, account_id, _, codes = _enrolled(request_, clock)
    assert service.verify_code(account_id, codes[0].upper()) == "recovery_code"
    assert service.verify_code(account_id, codes[0]) is None
    assert service.factors(account_id).recovery_codes_left == 9
    new = service.regenerate_recovery_codes(account_id)
    assert service.verify_code(account_id, codes[1]) is None and service.verify_code(account_id, new[1])
    assert service.factors(account_id).recovery_codes_left == 9


def test_the_last_factor_takes_the_codes_with_it(request_, clock):
    service, account_id, _, codes = _enrolled(request_, clock)
    service.remove_app(account_id)
    assert not service.has_second_factor(account_id)
    assert service.factors(account_id).recovery_codes_left == 0
    assert service.verify_code(account_id, codes[0]) is None
    with pytest.raises(FieldErrors):
        service.regenerate_recovery_codes(account_id)
    with pytest.raises(FieldErrors):
        service.remove_app(account_id)


def test_the_workspace_rule_needs_the_owner_s_own_factor(request_, clock, world):
    workspace_id, _ = world.workspace()
    service, owner = _service(request_, clock), _account(request_)
    with pytest.raises(FieldErrors) as refused:
        service.set_workspace_rule(workspace_id, owner, True)
    assert "Set up your own second factor first" in refused.value.errors["required"]
    service, owner, _, _ = _enrolled(request_, clock)
    service.set_workspace_rule(workspace_id, owner, True)
    assert service.workspace_requires(workspace_id)
    service.set_workspace_rule(workspace_id, owner, False)
    assert not service.workspace_requires(workspace_id)
    assert service.accounts_with_second_factor([owner, _account(request_), None]) == {owner}


def test_a_pending_sign_in_lasts_its_lifetime_and_counts_failures(request_, clock):
    service, account_id, secret, codes = _enrolled(request_, clock)
    steps = SignInSteps(request_.db, service, request_.find_service(IMail), ThrottleRules(),
                        CodeRules(per_account_and_address=2), clock)
    token = steps.begin(account_id)
    assert steps.pending(token).account_id == account_id and steps.pending("other") is None
    for _ in range(2):
        with pytest.raises(FieldErrors):
            steps.with_code(token, "000000" if _code(secret, clock, 1) != "000000" else "111111", "10.0.0.9")
    with pytest.raises(FieldErrors) as throttled:
        steps.with_code(token, codes[0], "10.0.0.9")
    assert throttled.value.errors["code"] == "Too many wrong codes. Try again in 15 minutes"
    assert steps.with_code(token, codes[0], "10.0.0.10") == account_id  # another address
    assert steps.pending(token) is None  # completed: gone
    late = steps.begin(account_id)
    clock.at += LIFETIME
    assert steps.pending(late) is None
    with pytest.raises(FieldErrors) as expired:
        steps.with_code(late, codes[1], "10.0.0.10")
    assert expired.value.errors == {"code": "Your sign-in was left too long: log in again"}
