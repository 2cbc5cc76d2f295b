"""Every form that sends mail counts in one mail throttle (sign-up, forgotten password, email change, sending the
verification link again): 3 an hour per email and client address, 10 an hour per email from all addresses
together, and what the signed-in owner of an address asks for it counted apart, never refused by what strangers
sent. Every form that asks for the password again (the password and email pages) counts in the "Confirm it's
you" page's throttle, the log-in's."""

from tests.portal.helpers import PASSWORD, browser, error_summary, mailed_to, signed_up, submit, unique_email

TOO_MANY_MAILS = "Too many requests for email. Try again in "
TOO_MANY_PASSWORDS = "Too many wrong passwords. Try again in "
RESET = "Reset your Clinic Records password"


def _forgot(client, email, status=303):
    return submit(client.get("/portal/forgot-password"), "forgot-password", email=email, status=status)


def _sent_to(mail, email):
    return [message for message in mail.messages() if message.to == [email]]


def test_email_change_requests_mail_a_strangers_address_three_times_an_hour(app, mail):
    client, _ = signed_up(app)
    stranger = unique_email("stranger")
    page = client.get("/portal/account/email")
    for _ in range(3):
        submit(page, "email-change", email=stranger, password=PASSWORD, status=303)
    refused = submit(page, "email-change", email=stranger, password=PASSWORD, status=400)
    assert error_summary(refused)[0].startswith(TOO_MANY_MAILS + "60 minutes")
    assert refused.html.find(id="email-error") is not None
    mail.wait_for(4)  # the sign-up's own, and three to the stranger
    assert len(_sent_to(mail, stranger)) == 3


def test_the_password_page_counts_wrong_passwords_with_the_confirm_page(app):
    client, _ = signed_up(app)
    for _ in range(5):
        wrong = submit(client.get("/portal/account/password"), "password-change", current_password="not it at all",
                       new_password="a brand new passphrase 314", status=400)
        assert error_summary(wrong) == ["Your current password is not right"]
    refused = submit(client.get("/portal/account/password"), "password-change", current_password=PASSWORD,
                     new_password="a brand new passphrase 314", status=400)
    assert error_summary(refused)[0].startswith(TOO_MANY_PASSWORDS)
    assert refused.html.find(id="current_password-error") is not None
    confirm = submit(client.get("/portal/confirm?next=/portal/"), "confirm-password", password=PASSWORD, status=400)
    assert error_summary(confirm)[0].startswith(TOO_MANY_PASSWORDS)


def test_the_email_page_counts_wrong_passwords_with_the_confirm_page(app, mail):
    client, _ = signed_up(app)
    for _ in range(3):
        submit(client.get("/portal/confirm?next=/portal/"), "confirm-password", password="not it at all", status=400)
    for _ in range(2):
        wrong = submit(client.get("/portal/account/email"), "email-change", email=unique_email("moved"),
                       password="not it at all", status=400)
        assert error_summary(wrong) == ["Your password is not right"]
    new = unique_email("moved")
    refused = submit(client.get("/portal/account/email"), "email-change", email=new, password=PASSWORD, status=400)
    assert error_summary(refused)[0].startswith(TOO_MANY_PASSWORDS)
    assert _sent_to(mail, new) == []


def test_a_strangers_forgot_password_requests_never_block_the_owners_own(app, mail):
    _, owner_email = signed_up(app)
    stranger = browser(app, "10.48.0.1")
    for _ in range(3):
        _forgot(stranger, owner_email)
    refused = _forgot(stranger, owner_email, status=400)
    assert error_summary(refused)[0].startswith(TOO_MANY_MAILS)
    # The same refusal for an address nobody has: the answer says nothing of accounts.
    nobody = unique_email("nobody")
    for _ in range(3):
        _forgot(stranger, nobody)
    assert error_summary(_forgot(stranger, nobody, status=400)) == error_summary(refused)
    # The owner, from their own address, gets their link.
    mail.clear()
    _forgot(browser(app, "10.48.0.2"), owner_email)
    assert mailed_to(mail, owner_email, RESET)


def test_ten_an_hour_per_email_from_all_addresses_together(app, mail):
    email = unique_email("target")
    for n in range(10):
        _forgot(browser(app, f"10.49.0.{n}"), email)
    refused = _forgot(browser(app, "10.49.1.1"), email, status=400)
    assert error_summary(refused)[0].startswith(TOO_MANY_MAILS)
    sign_up = submit(browser(app, "10.49.1.2").get("/portal/signup"), "signup", email=email, password=PASSWORD,
                     status=400)
    assert error_summary(sign_up)[0].startswith(TOO_MANY_MAILS)  # one throttle for every form that mails
    assert len(mail.wait_for(10)) == 10


def test_the_owner_can_send_the_link_again_whatever_strangers_sent(app, mail):
    client, email = signed_up(app, verified=False)  # its sign-up is one of the ten an hour for the address
    for n in range(9):
        _forgot(browser(app, f"10.50.0.{n}"), email)
    assert error_summary(_forgot(browser(app, "10.50.1.1"), email, status=400))[0].startswith(TOO_MANY_MAILS)
    mail.wait_for(10)
    mail.clear()
    for _ in range(3):
        sent = submit(client.get("/portal/account/email"), "resend", status=303).follow()
        assert f"We sent a link to {email}" in sent.html.find(id="sent").get_text(" ", strip=True)
    assert len(mail.wait_for(3)) == 3
    # The owner's own requests have their limit too.
    refused = submit(client.get("/portal/account/email"), "resend", status=400)
    assert error_summary(refused)[0].startswith(TOO_MANY_MAILS)
