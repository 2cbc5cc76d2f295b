"""Decision 0093 (the notices of sessions and account changes), read from the real SMTP server: a sign-in
from a browser that carries no earlier device cookie of this account is mailed, one from a known browser is
not; a password change and an email change are mailed once each, to the address that must hear of them."""

import webtest
from sqlalchemy import select

from clinicrecords.identity.models import Account, KnownDevice
from clinicrecords.identity.tokens import token_hash
from clinicrecords.portal.web.devices import DeviceCookie
from clinicrecords.portal.web.sessions import SessionCookie
from clinicrecords.settings import PortalSettings
from tests.portal.helpers import PASSWORD, mailed_to, portal_path, signed_up, submit

NEW_SIGN_IN = "New sign-in to your Clinic Records account"
PASSWORD_CHANGED = "Your Clinic Records password was changed"
EMAIL_CHANGED = "The email address of your Clinic Records account changed"
CHROME_ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0.6478.122 Mobile Safari/537.36")


def _log_in(client, email):
    submit(client.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)


def _subjects(mail, to):
    return [message.subject for message in mail.messages() if message.to == [to]]


def _sentinel(client, mail, email):
    """A message sent after everything before it: once it is here, a notice queued earlier would be too."""
    submit(client.get("/portal/forgot-password"), "forgot-password", email=email, status=303)
    mailed_to(mail, email, "Reset your Clinic Records password")


def test_a_sign_in_from_a_new_browser_is_mailed_one_from_a_known_browser_is_not(app, engine, mail):
    client, email = signed_up(app)  # the account's first sign-in: nothing to tell it from
    device_cookie = client.cookies["portal_device"]
    _log_in(client, email)  # the same browser again
    assert client.cookies["portal_device"] == device_cookie
    _sentinel(client, mail, email)
    assert NEW_SIGN_IN not in _subjects(mail, email)

    phone = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "203.0.113.77", "HTTP_USER_AGENT": CHROME_ANDROID})
    _log_in(phone, email)
    notice = mailed_to(mail, email, NEW_SIGN_IN)
    assert "Chrome 126 on Android" in notice.text and "from 203.0.113.77" in notice.text
    assert " UTC" in notice.text and PASSWORD not in notice.text
    assert notice.link("/account/sessions").endswith("/portal/account/sessions")
    _log_in(phone, email)  # known now
    mail.clear()
    _sentinel(phone, mail, email)
    assert NEW_SIGN_IN not in _subjects(mail, email)
    with engine.connect() as connection:
        stored = connection.scalars(select(KnownDevice.device_hash).join(Account, Account.id == KnownDevice.account_id)
                                    .where(Account.email == email)).all()
    # Only hashes: the two browsers' ids themselves are in their cookies alone.
    assert sorted(stored) == sorted([token_hash(device_cookie), token_hash(phone.cookies["portal_device"])])


def test_the_device_cookie_is_long_lived_httponly_and_lax_and_secure_outside_development(app):
    client, email = signed_up(app)
    answer = submit(client.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    [cookie] = [value for name, value in answer.headerlist if name == "Set-Cookie" and "portal_device=" in value]
    assert {"Max-Age=31536000", "HttpOnly", "SameSite=Lax", "Path=/portal"} <= set(cookie.split("; "))
    secure = DeviceCookie(SessionCookie(PortalSettings(secure_cookies=True), "/portal"))
    assert (secure.name, secure.secure, secure.path) == ("__Host-portal_device", True, "/")


def test_a_password_change_is_mailed_once(app, mail):
    client, email = signed_up(app)
    submit(client.get("/portal/account/password"), "password-change", current_password=PASSWORD,
           new_password="another long passphrase 77", status=303)
    notice = mailed_to(mail, email, PASSWORD_CHANGED)
    assert "on your account's password page" in notice.text and "Every other browser" in notice.text
    assert "another long passphrase 77" not in notice.text
    _sentinel(client, mail, email)
    assert _subjects(mail, email).count(PASSWORD_CHANGED) == 1


def test_an_email_change_is_mailed_once_to_the_old_address(app, mail):
    client, old = signed_up(app)
    new = "moved-" + old
    submit(client.get("/portal/account/email"), "email-change", email=new, password=PASSWORD, status=303)
    link = portal_path(mailed_to(mail, new, "Verify your new email address for Clinic Records").link("/verify-email"))
    assert EMAIL_CHANGED not in _subjects(mail, old)  # asked for, not done: nothing changed yet
    submit(client.get(link), "verify-email", status=303)
    notice = mailed_to(mail, old, EMAIL_CHANGED)
    assert f"{new[0]}***@{new.split('@')[1]}" in notice.text and new not in notice.text  # named, not given away
    _sentinel(client, mail, new)
    assert _subjects(mail, old).count(EMAIL_CHANGED) == 1 and EMAIL_CHANGED not in _subjects(mail, new)
