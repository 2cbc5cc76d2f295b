"""The forms that take an address to be mailed (sign-up, forgotten password, email change, invitations) judge it
with the mail service's own parser before anything else: an address the mailer would refuse, or would rewrite
(a comment: "f(x)@example.org" is mailed to f@example.org), is the form's 400 with its message, never a 500,
and nothing is mailed. A refused request still counts towards the mail throttle; a log-in email too long for
any account is refused and counted as a failure."""

import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.identity.models import LoginFailure, MailRequest
from tests.common.mail import outbox_rows
from tests.portal.helpers import PASSWORD, browser, error_summary, signed_up, submit, with_workspace

FORMAT = "Enter an email address in the right format, like name@example.com"

# Each passed the form's old pattern and was refused by the mailer (a 500), or was mailed to another address.
UNMAILABLE = [
    "a,b@example.org",
    "a<b>@example.org",
    ".a@example.org",
    "a..b@example.org",
    "a@ex_ample.org",
    "jürgen@example.org",
    "f(x)@example.org",
    "\"a\"@example.org",
]


def _client_address():
    return f"203.0.113.{uuid.uuid4().int % 250 + 1}"


def _requests(engine, address):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(MailRequest).where(MailRequest.address == address))


@pytest.mark.parametrize("email", UNMAILABLE)
def test_sign_up_refuses_an_address_the_mailer_would_refuse_or_rewrite(app, engine, mail, email):
    address = _client_address()
    client = browser(app, address)
    refused = submit(client.get("/portal/signup"), "signup", email=email, password=PASSWORD, status=400)
    assert error_summary(refused) == [FORMAT]
    assert _requests(engine, address) == 1, "the refused request is counted, and the count is kept"
    assert outbox_rows(engine) == []


@pytest.mark.parametrize("email", UNMAILABLE)
def test_forgotten_password_refuses_an_address_the_mailer_would_refuse_or_rewrite(app, engine, mail, email):
    address = _client_address()
    refused = submit(browser(app, address).get("/portal/forgot-password"), "forgot-password", email=email, status=400)
    assert error_summary(refused) == [FORMAT]
    assert _requests(engine, address) == 1
    assert outbox_rows(engine) == []


@pytest.mark.parametrize("email", UNMAILABLE)
def test_an_email_change_refuses_an_address_the_mailer_would_refuse_or_rewrite(app, engine, mail, email):
    client, _ = signed_up(app)
    before = len(outbox_rows(engine))
    refused = submit(client.get("/portal/account/email"), "email-change", email=email, password=PASSWORD, status=400)
    assert error_summary(refused) == [FORMAT]
    assert len(outbox_rows(engine)) == before


@pytest.mark.parametrize("email", UNMAILABLE)
def test_an_invitation_refuses_an_address_the_mailer_would_refuse_or_rewrite(app, engine, mail, email):
    owner, workspace_id = with_workspace(app)
    before = len(outbox_rows(engine))
    refused = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email,
                     role="developer", status=400)
    assert error_summary(refused) == [FORMAT]
    assert len(outbox_rows(engine)) == before


def test_refused_sign_ups_count_until_the_client_is_told_to_wait(app, engine, mail):
    """Twenty requests an hour from a client: refused ones among them, so none costs a password hash for free."""
    address = _client_address()
    client = browser(app, address)
    for number in range(20):
        refused = submit(client.get("/portal/signup"), "signup", email=f"x{number},y@example.org",
                         password=PASSWORD, status=400)
        assert error_summary(refused) == [FORMAT]
    told = submit(client.get("/portal/signup"), "signup", email="fine@example.org", password=PASSWORD, status=400)
    assert error_summary(told)[0].startswith("Too many requests for email")
    assert outbox_rows(engine) == []


def test_a_log_in_email_too_long_for_any_account_is_refused_and_counted(app, engine):
    address = _client_address()
    email = "a" * 64 + "@" + "b" * 200 + ".example.org"
    refused = submit(browser(app, address).get("/portal/login"), "login", email=email, password=PASSWORD,
                     status=400)
    assert error_summary(refused) == [FORMAT]
    with engine.connect() as connection:
        counted = connection.scalars(select(LoginFailure.email).where(LoginFailure.address == address)).all()
    assert counted == [email[:254]]
