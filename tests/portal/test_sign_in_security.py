"""Signing in safely (decision 0064): a `next` that cannot be a path of the portal leads home; failed
log-ins are counted per account and address and per address, in the database, and a refusal says when to
try again at once (decision 0066), on the address the server saw (decision 0069)."""

import datetime
import re

from urllib.parse import urlencode

import pytest
from sqlalchemy import func, insert, select

from clinicrecords.identity.models import LoginFailure
from tests.portal.helpers import PASSWORD, browser, error_summary, signed_up, unique_email

UNUSABLE_NEXT = [
    "/portal/\r\nSet-Cookie: portal_session=planted",
    "/portal/%0d%0aSet-Cookie:%20x=y\r\n",
    "/portal/\nLocation: https://evil.example/",
    "/portal/\x00",
    "/portal/\u2028keys",
    "/portal/../v1/me",
    "/portal/%2e%2E/v1/me",
    "/portal/\\\\evil.example",
    "/portal/ keys",
]


@pytest.mark.parametrize("target", UNUSABLE_NEXT)
def test_log_in_with_an_unusable_next_goes_home(app, target):
    _, email = signed_up(app)
    client = browser(app)
    form = client.get("/portal/login", {"next": target}).forms["login"]
    form["email"], form["password"] = email, PASSWORD
    answer = form.submit(status=303)
    assert answer.location == "http://localhost/portal/"
    assert not [cookie for cookie in answer.headers.getall("Set-Cookie") if "planted" in cookie]


@pytest.mark.parametrize("target", UNUSABLE_NEXT)
def test_sign_up_never_carries_an_unusable_next_on(app, target):
    client = browser(app)
    form = client.get("/portal/signup", {"next": target}).forms["signup"]
    email = unique_email()
    form["email"], form["password"] = email, PASSWORD
    location = form.submit(status=303).location
    assert location == "http://localhost/portal/signup?" + urlencode({"sent": email})


def test_a_usable_next_with_its_query_is_kept(app):
    _, email = signed_up(app)
    client = browser(app)
    form = client.get("/portal/login", {"next": "/portal/workspaces/new?from=menu%20bar"}).forms["login"]
    form["email"], form["password"] = email, PASSWORD
    assert form.submit(status=303).location == "http://localhost/portal/workspaces/new?from=menu%20bar"


def _log_in(client, email, password, address, status, forwarded_for=None):
    form = client.get("/portal/login").forms["login"]
    form["email"], form["password"] = email, password
    environ = {"REMOTE_ADDR": address}
    if forwarded_for:
        environ["HTTP_X_FORWARDED_FOR"] = forwarded_for
    return form.submit(status=status, extra_environ=environ)


def _throttled_minutes(answer):
    [message] = error_summary(answer)
    match = re.fullmatch(r"Too many attempts to log in\. Try again in (\d+) minutes?", message)
    assert match, message
    return int(match.group(1))


def test_wrong_passwords_from_one_address_never_lock_the_owner_out(app, engine):
    """Decision 0066: anyone who knows an owner's email kept them out with five wrong passwords."""
    _, email = signed_up(app)
    for _ in range(5):
        _log_in(browser(app), email, "a wrong password, guessed", "198.51.100.7", status=400)
    refused = _log_in(browser(app), email, PASSWORD, "198.51.100.7", status=400)
    assert _throttled_minutes(refused) == 15
    # The owner, elsewhere, with the right password: in at once, and nothing of the attacker's is cleared.
    _log_in(browser(app), email, PASSWORD, "192.0.2.44", status=303)
    _log_in(browser(app), email, PASSWORD, "198.51.100.7", status=400)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(LoginFailure).where(
            LoginFailure.email == email, LoginFailure.address == "198.51.100.7")) == 5


def test_a_success_clears_only_its_own_addresss_failures(app, engine):
    _, email = signed_up(app)
    for address in ("192.0.2.44", "198.51.100.7"):
        for _ in range(4):
            _log_in(browser(app), email, "a wrong password, guessed", address, status=400)
    _log_in(browser(app), email, PASSWORD, "192.0.2.44", status=303)
    _log_in(browser(app), email, "a wrong password, guessed", "198.51.100.7", status=400)
    assert _throttled_minutes(_log_in(browser(app), email, PASSWORD, "198.51.100.7", status=400)) == 15
    for _ in range(4):
        _log_in(browser(app), email, "a wrong password, guessed", "192.0.2.44", status=400)
    _log_in(browser(app), email, PASSWORD, "192.0.2.44", status=303)


def test_an_address_is_refused_after_twenty_failures_for_any_accounts(app):
    _, email = signed_up(app)
    for _ in range(20):
        _log_in(browser(app), unique_email(), "a wrong password, guessed", "198.51.100.8", status=400)
    assert _throttled_minutes(_log_in(browser(app), email, PASSWORD, "198.51.100.8", status=400)) == 15
    _log_in(browser(app), email, PASSWORD, "198.51.100.9", status=303)


def test_the_refusal_counts_down_from_the_failure_that_keeps_it(app, engine):
    """The pair is free again when its fifth-newest failure in the window is 15 minutes old."""
    _, email = signed_up(app)
    now = datetime.datetime.now(datetime.UTC)
    with engine.begin() as connection:
        for minutes_ago in (14, 13, 9, 3, 1, 0):
            connection.execute(insert(LoginFailure).values(email=email, address="198.51.100.7",
                                                           at=now - datetime.timedelta(minutes=minutes_ago)))
    answer = _log_in(browser(app), email, PASSWORD, "198.51.100.7", status=400)
    assert _throttled_minutes(answer) == 2  # the failure of 13 minutes ago keeps five in the window
    assert error_summary(answer) == ["Too many attempts to log in. Try again in 2 minutes"]


def test_a_forwarded_for_the_client_wrote_does_not_change_its_address(app):
    """Item 10: a new X-Forwarded-For per attempt must not make a new address per attempt."""
    _, email = signed_up(app)
    for attempt in range(5):
        _log_in(browser(app), email, "a wrong password, guessed", "198.51.100.7", status=400,
                forwarded_for=f"203.0.113.{attempt}")
    refused = _log_in(browser(app), email, PASSWORD, "198.51.100.7", status=400, forwarded_for="203.0.113.200")
    assert _throttled_minutes(refused) == 15
