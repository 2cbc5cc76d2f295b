"""Decision 0089: "Forgot your password?" answers the same whether or not an account exists; the emailed link
works once, for an hour, and stops working when a newer one is sent or the password changes; a new password
ends every session and emails a notice; operators make a link with `account reset-link`."""

import datetime

import pytest
from sqlalchemy import select, update

from clinicrecords.identity.models import Account, AccountLink
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import ok, refused
from tests.common.statements import statements
from tests.portal.helpers import (PASSWORD, browser, enrol_app, error_summary, log_in_to_second_step, mailed_to,
                                  portal_path, signed_up, submit, totp_code, unique_email)

NEW_PASSWORD = "a brand new passphrase 314"
RESET = "Reset your Clinic Records password"


def _forgot(client, email, status=303):
    return submit(client.get("/portal/forgot-password"), "forgot-password", email=email, status=status)


def _reset_link(mail, email):
    return portal_path(mailed_to(mail, email, RESET).link("/reset-password"))


def test_the_log_in_page_offers_forgot_your_password(app):
    page = browser(app).get("/portal/login")
    assert page.html.find(id="forgot-link")["href"] == "/portal/forgot-password"


def test_a_known_and_an_unknown_address_get_the_same_answer_and_each_an_email(app, mail):
    _, known = signed_up(app)
    unknown = unique_email("nobody")
    pages = [_forgot(browser(app), email).follow().text.replace(email, "EMAIL") for email in (known, unknown)]
    assert pages[0] == pages[1]
    assert "If an account has this address" in pages[0]
    message = mailed_to(mail, known, RESET)
    assert "works once, for 60 minutes" in message.text and "your Clinic Records account" in message.text
    assert PASSWORD not in message.text
    nobody = mailed_to(mail, unknown, "No Clinic Records account has this address")
    assert "/reset-password" not in nobody.text and nobody.link("/signup").endswith("/portal/signup")


def test_a_new_password_ends_every_session_and_mails_a_notice(app, engine, mail):
    signed_in, email = signed_up(app)
    other = browser(app)
    submit(other.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    _forgot(browser(app), email)
    link = _reset_link(mail, email)
    page = browser(app).get(link)
    assert email in page.html.find("h1").find_next("p").get_text()
    weak = submit(page, "reset-password", password="short", status=400)
    assert "12 characters" in error_summary(weak)[0]
    done = submit(page, "reset-password", password=NEW_PASSWORD, status=303)
    assert done.location.endswith("/portal/login?reset=1")
    assert "Password changed" in done.follow().html.find(id="reset-done").get_text()
    for client in (signed_in, other):
        assert client.get("/portal/", status=302).location.startswith("http://localhost/portal/login")
    notice = mailed_to(mail, email, "Your Clinic Records password was changed")
    assert "signed out" in notice.text and NEW_PASSWORD not in notice.text and NEW_PASSWORD not in notice.html
    again = browser(app)
    submit(again.get("/portal/login"), "login", email=email, password=PASSWORD, status=400)
    submit(again.get("/portal/login"), "login", email=email, password=NEW_PASSWORD, status=303)
    used = browser(app).get(link)
    assert "was already used" in used.html.find(id="link-problem").get_text()
    assert error_summary(submit(page, "reset-password", password="yet another passphrase 99", status=400)) == [
        "This link has expired, was already used or a newer one was sent"]
    with engine.connect() as connection:
        assert connection.scalar(select(Account.email_verified_at).where(Account.email == email)) is not None


def test_a_newer_link_voids_the_older_one(app, mail):
    _, email = signed_up(app)
    _forgot(browser(app), email)
    first = _reset_link(mail, email)
    mail.clear()
    _forgot(browser(app), email)
    second = _reset_link(mail, email)
    assert first != second
    assert "a newer link was sent" in browser(app).get(first).html.find(id="link-problem").get_text()
    submit(browser(app).get(second), "reset-password", password=NEW_PASSWORD, status=303)


def test_changing_the_password_voids_an_outstanding_link(app, mail):
    client, email = signed_up(app)
    _forgot(browser(app), email)
    link = _reset_link(mail, email)
    submit(client.get("/portal/account/password"), "password-change", current_password=PASSWORD,
           new_password=NEW_PASSWORD, status=303)
    assert browser(app).get(link).html.find(id="link-problem") is not None


def test_an_expired_link_does_not_work(app, engine, mail):
    _, email = signed_up(app)
    _forgot(browser(app), email)
    link = _reset_link(mail, email)
    with engine.begin() as connection:
        connection.execute(update(AccountLink).where(AccountLink.purpose == "reset_password").values(
            expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)))
    assert browser(app).get(link).html.find(id="link-problem") is not None


def test_bad_input_is_rerendered_with_its_message(app, mail):
    answer = _forgot(browser(app), "not an email", status=400)
    assert error_summary(answer) == ["Enter an email address in the right format, like name@example.com"]
    assert answer.forms["forgot-password"]["email"].value == "not an email"
    assert "does not work" in browser(app).get("/portal/reset-password?token=made-up").text
    assert mail.messages() == []


def test_the_forms_need_their_csrf_token(app, mail):
    _, email = signed_up(app)
    client = browser(app)
    client.get("/portal/forgot-password")
    client.post("/portal/forgot-password", {"email": email}, status=403)
    _forgot(browser(app), email)
    token = _reset_link(mail, email).split("token=")[1]
    client.post("/portal/reset-password", {"token": token, "password": NEW_PASSWORD}, status=403)
    submit(browser(app).get(f"/portal/reset-password?token={token}"), "reset-password", password=NEW_PASSWORD,
           status=303)


def test_the_forgot_password_form_is_throttled_per_email(app, mail):
    """Three an hour per email and address (more: tests/portal/test_mail_and_password_throttles.py)."""
    email = unique_email("target")
    for _ in range(3):
        _forgot(browser(app), email)
    refused_page = _forgot(browser(app), email, status=400)
    assert error_summary(refused_page)[0].startswith("Too many requests for email. Try again in")


def test_operators_make_a_reset_link_for_someone_without_working_email(app, engine, mail):
    _, email = signed_up(app)
    printed = ok("account", "reset-link", "--email", email.upper())
    assert set(printed) == {"email", "reset_url", "expires_at"} and printed["email"] == email
    assert "/portal/reset-password?token=" in printed["reset_url"]
    expires = datetime.datetime.fromisoformat(printed["expires_at"])
    assert datetime.timedelta(minutes=59) < expires - datetime.datetime.now(datetime.UTC) <= datetime.timedelta(
        hours=1)
    with engine.connect() as connection:
        entry = connection.execute(select(PortalAuditEntry).where(
            PortalAuditEntry.action == "account.reset_link_issued", PortalAuditEntry.target == email)).one()
    assert entry.account_id is None
    submit(browser(app).get(portal_path(printed["reset_url"])), "reset-password", password=NEW_PASSWORD,
           status=303)
    assert "/reset-password" not in " ".join(message.text for message in mail.messages())
    assert "No account has the email nobody@example.org" in refused("account", "reset-link", "--email",
                                                                    "nobody@example.org")


def test_an_email_change_voids_the_reset_links_mailed_to_the_old_address(app, mail):
    client, email = signed_up(app)
    _forgot(browser(app, "10.47.0.1"), email)
    old_link = _reset_link(mail, email)
    new = unique_email("moved")
    submit(client.get("/portal/account/email"), "email-change", email=new, password=PASSWORD, status=303)
    verify = portal_path(mailed_to(mail, new, "Verify your new email address for Clinic Records").link("/verify-email"))
    submit(browser(app).get(verify), "verify-email", status=303)
    assert browser(app).get(old_link).html.find(id="link-problem") is not None
    submit(browser(app).get("/portal/login"), "login", email=new, password=PASSWORD, status=303)


@pytest.mark.parametrize("how", ["reset", "change"])
def test_a_new_password_ends_the_sign_ins_waiting_at_the_second_step(app, mail, how):
    """Whoever got past the old password and waits at the second step starts again, and cannot."""
    client, email = signed_up(app)
    secret, _ = enrol_app(client)
    attacker, step = log_in_to_second_step(app, email, address="10.47.0.2")
    if how == "reset":
        _forgot(browser(app, "10.47.0.3"), email)
        submit(browser(app).get(_reset_link(mail, email)), "reset-password", password=NEW_PASSWORD, status=303)
    else:
        submit(client.get("/portal/account/password"), "password-change", current_password=PASSWORD,
               new_password=NEW_PASSWORD, status=303)
    late = submit(step, "second-step", code=totp_code(secret, 1), status=400)
    assert late.html.find(id="no-sign-in") is not None
    attacker.get("/portal/", status=302)
    refused = submit(browser(app, "10.47.0.2").get("/portal/login"), "login", email=email, password=PASSWORD,
                     status=400)
    assert error_summary(refused) == ["Email or password is not right"]


def test_forgot_password_sends_the_same_statements_for_a_known_and_an_unknown_address(app, engine, mail):
    """The answer's time says nothing of whether the address has an account: both paths send the same SQL
    (compared as text, the values bound apart), the outbox row and its sending included."""
    _, known = signed_up(app)
    sent = {}
    for n, email in enumerate((known, unique_email("nobody"))):
        page = browser(app, f"10.47.1.{n}").get("/portal/forgot-password")
        with statements(engine, this_thread_only=True) as seen:
            submit(page, "forgot-password", email=email, status=303)
        sent[email] = seen
    [known_sent, unknown_sent] = sent.values()
    assert known_sent == unknown_sent
    assert any("account_links" in statement for statement in known_sent)
    mailed_to(mail, known, RESET)
