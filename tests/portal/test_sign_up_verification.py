"""Decision 0089: sign-up answers the same for a new and a known address, the email says which it was, and
its link (single use, 24 h) verifies the address; changing one's email re-verifies the new address."""

import datetime
import time

from sqlalchemy import func, select, update

from clinicrecords.identity.models import Account, AccountLink
from clinicrecords.identity.services import IRecoveryService
from clinicrecords.tasks import prepared_request
from tests.portal.helpers import PASSWORD, browser, error_summary, signed_up, submit, unique_email


def _account(engine, email):
    with engine.connect() as connection:
        return connection.execute(select(Account).where(Account.email == email)).first()


def _count(engine, email):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(Account).where(Account.email == email))


def _sign_up(client, email, password=PASSWORD, status=303):
    return submit(client.get("/portal/signup"), "signup", email=email, password=password, status=status)


def _sent_page(answer):
    page = answer.follow()
    return page.html.find(id="sent").get_text(" ", strip=True)


def _path(link):
    return link[link.index("/portal/"):]


def test_a_new_address_gets_a_verification_link_that_works_once(app, engine, mail):
    client = browser(app)
    email = unique_email("new")
    answer = _sign_up(client, email)
    assert f"We sent a link to {email}" in _sent_page(answer)
    assert not [cookie for cookie in answer.headers.getall("Set-Cookie") if "portal_session=" in cookie]
    assert _account(engine, email).email_verified_at is None
    [message] = mail.wait_for(1)
    assert message.to == [email] and message.subject == "Verify your email address for Clinic Records"
    assert "works once, for 24 hours" in message.text and "This message is about your Clinic Records account" \
        in message.text
    assert PASSWORD not in message.text and PASSWORD not in message.html
    link = message.link("/verify-email")
    page = browser(app).get(_path(link))
    assert email in page.html.find("h1").find_next("p").get_text()
    assert _account(engine, email).email_verified_at is None, "opening the link alone changes nothing"
    done = submit(page, "verify-email", status=303).follow()
    assert "Email address verified" in done.html.find(id="verified").get_text()
    assert _account(engine, email).email_verified_at is not None
    again = browser(app).get(_path(link))
    assert "has expired or was already used" in again.html.find(id="link-problem").get_text()
    used = submit(page, "verify-email", status=400)
    assert error_summary(used) == ["This link has expired or was already used"]


def test_a_known_address_gets_the_same_answer_and_an_email_instead_of_a_second_account(app, engine, mail):
    _, email = signed_up(app)
    mail.wait_for(1)
    mail.clear()
    before = _account(engine, email)
    answer = _sign_up(browser(app), email.upper(), password="another long passphrase 77")
    assert f"We sent a link to {email}" in _sent_page(answer)
    assert _count(engine, email) == 1 and _account(engine, email).password_hash == before.password_hash
    [message] = mail.wait_for(1)
    assert message.to == [email] and message.subject == "You already have a Clinic Records account"
    assert "no second one was made" in message.text
    assert message.link("/portal/login").endswith("/portal/login")
    assert message.link("/forgot-password").endswith("/portal/forgot-password")
    assert "/verify-email" not in message.text


def test_a_new_and_a_known_address_get_the_same_page(app, mail):
    _, known = signed_up(app)
    new = unique_email("new")
    pages = [_sign_up(browser(app), email).follow().text.replace(email, "EMAIL") for email in (known, new)]
    assert pages[0] == pages[1]


def test_an_expired_verification_link_does_not_work(app, engine, mail):
    email = unique_email()
    _sign_up(browser(app), email)
    [message] = mail.wait_for(1)
    with engine.begin() as connection:
        connection.execute(update(AccountLink).values(
            expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)))
    page = browser(app).get(_path(message.link("/verify-email")))
    assert "has expired or was already used" in page.html.find(id="link-problem").get_text()
    assert _account(engine, email).email_verified_at is None


def test_bad_sign_up_input_is_rerendered_with_its_message_and_mails_nothing(app, engine, mail):
    answer = _sign_up(browser(app), "not-an-email", status=400)
    assert error_summary(answer) == ["Enter an email address in the right format, like name@example.com"]
    assert answer.forms["signup"]["email"].value == "not-an-email"
    short = _sign_up(browser(app), unique_email(), password="short", status=400)
    assert "12 characters" in error_summary(short)[0]
    assert mail.messages() == []


def test_sign_up_without_its_csrf_token_changes_nothing(app, engine, mail):
    client = browser(app)
    client.get("/portal/signup")
    email = unique_email()
    client.post("/portal/signup", {"email": email, "password": PASSWORD}, status=403)
    assert _count(engine, email) == 0 and mail.messages() == []


def test_sign_up_is_throttled_per_email_so_it_cannot_flood_an_inbox(app, engine, mail):
    email = unique_email("target")
    for _ in range(3):
        _sign_up(browser(app), email, status=303)
    refused = _sign_up(browser(app), email, status=400)
    assert error_summary(refused)[0].startswith("Too many requests for email. Try again in")
    assert len(mail.wait_for(3)) == 3


def test_an_unverified_account_can_log_in_and_sees_its_address_unverified(app):
    client, email = signed_up(app, verified=False)
    page = client.get("/portal/account/email")
    assert f"{email}: not verified yet" in " ".join(page.html.find(id="email-status").get_text().split())


def test_changing_ones_email_verifies_the_new_address_before_it_counts(app, engine, mail):
    client, email = signed_up(app)
    mail.wait_for(1)
    mail.clear()
    new = unique_email("moved")
    page = client.get("/portal/account/email")
    wrong = submit(page, "email-change", email=new, password="not my password at all", status=400)
    assert error_summary(wrong) == ["Your password is not right"]
    assert wrong.forms["email-change"]["email"].value == new
    same = submit(page, "email-change", email=email, password=PASSWORD, status=400)
    assert error_summary(same) == ["This is already your email address"]
    answer = submit(page, "email-change", email=new, password=PASSWORD, status=303).follow()
    assert f"We sent a link to {new}" in answer.html.find(id="sent").get_text(" ", strip=True)
    assert _account(engine, email) is not None and _account(engine, new) is None, "the old address stays"
    [message] = mail.wait_for(1)
    assert message.to == [new]
    submit(browser(app).get(_path(message.link("/verify-email"))), "verify-email", status=303)
    moved = _account(engine, new)
    assert moved is not None and moved.email_verified_at is not None and _account(engine, email) is None
    submit(browser(app).get("/portal/login"), "login", email=new, password=PASSWORD, status=303)


def test_an_email_change_to_a_taken_address_mails_its_owner_instead(app, engine, mail):
    _, taken = signed_up(app)
    client, email = signed_up(app)
    mail.wait_for(2)
    mail.clear()
    page = client.get("/portal/account/email")
    answer = submit(page, "email-change", email=taken, password=PASSWORD, status=303).follow()
    assert f"We sent a link to {taken}" in answer.html.find(id="sent").get_text(" ", strip=True)
    [message] = mail.wait_for(1)
    assert message.to == [taken] and message.subject == "You already have a Clinic Records account"
    assert _account(engine, email) is not None


def test_an_unverified_member_can_have_the_link_sent_again_and_the_newest_works(app, engine, mail):
    client, email = signed_up(app, verified=False)
    first = _path(mail.wait_for(1)[0].link("/verify-email"))
    mail.clear()
    answer = submit(client.get("/portal/account/email"), "resend", status=303).follow()
    assert f"We sent a link to {email}" in answer.html.find(id="sent").get_text(" ", strip=True)
    [message] = mail.wait_for(1)
    assert message.to == [email] and _path(message.link("/verify-email")) != first
    submit(browser(app).get(_path(message.link("/verify-email"))), "verify-email", status=303)
    assert _account(engine, email).email_verified_at is not None
    page = client.get("/portal/account/email")
    assert page.html.find(id="resend") is None
    client.post("/portal/account/email/resend", {"csrf_token": page.forms["email-change"]["csrf_token"].value},
                status=400)
    forged = client.post("/portal/account/email/resend", {}, status=403)
    assert "Nothing was changed" in forged.text


def test_once_an_address_is_proven_older_verification_links_stop_working(app, engine, mail):
    client, email = signed_up(app, verified=False)
    sign_up_link = _path(mail.wait_for(1)[0].link("/verify-email"))
    mail.clear()
    new = unique_email("moved")
    submit(client.get("/portal/account/email"), "email-change", email=new, password=PASSWORD, status=303)
    [message] = mail.wait_for(1)
    submit(browser(app).get(_path(message.link("/verify-email"))), "verify-email", status=303)
    assert browser(app).get(sign_up_link).html.find(id="link-problem") is not None
    assert _account(engine, new) is not None and _account(engine, email) is None


def test_a_rolled_back_sign_up_or_reset_request_mails_nothing(app, registry, engine, mail):
    _, known = signed_up(app)
    mail.wait_for(1)
    mail.clear()
    new = unique_email("rolled-back")
    with prepared_request(registry) as request:
        request.tm.begin()
        recovery = request.find_service(IRecoveryService)
        recovery.sign_up(new, PASSWORD, "127.0.0.1")
        recovery.request_reset(known, "127.0.0.1")
        request.db.flush()
        request.tm.abort()
    time.sleep(1)  # what a worker would have sent by now
    assert mail.messages() == []
    assert _count(engine, new) == 0
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(AccountLink).where(
            AccountLink.email.in_([new, known]), AccountLink.purpose == "reset_password")) == 0
