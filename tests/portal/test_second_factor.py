"""Second factors in the portal (decisions 0096, 0097, the notices of 0093), driven through the pages:
an authenticator app enrolled from the QR code's page and its secret as text, counting only once a code
confirms it; ten recovery codes shown once; the second step of signing in (a code accepted once, a recovery code
used once and mailed, wrong codes throttled apart from the password); passkeys added, renamed, removed, used as the
second step and alone (a software authenticator answering for real); each factor added or removed mailed."""

import json

import pytest
from sqlalchemy import func, select

from clinicrecords.identity.models import Account, AuthenticatorApp, Passkey, PendingSignIn, RecoveryCode, Session
from clinicrecords.portal.web.headers import PORTAL_HEADERS
from tests.identity.software_authenticator import SoftwareAuthenticator
from tests.portal.helpers import (PASSKEY_ORIGIN, PASSWORD, add_passkey, browser, enrol_app, error_summary,
                                  log_in_to_second_step, mailed_to, signed_up, submit, totp_code)

ORIGIN = PASSKEY_ORIGIN


def _count(engine, model, **where):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(model).filter_by(**where))


def _account_id(engine, email):
    with engine.connect() as connection:
        return connection.scalar(select(Account.id).where(Account.email == email))


def test_an_app_counts_only_once_a_code_confirms_it_and_its_codes_are_shown_once(app, engine, mail):
    client, email = signed_up(app)
    overview = client.get("/portal/account/two-factor")
    assert overview.html.find(id="status").get_text() == "OFF"
    page = submit(overview, "start-app", status=303).follow()
    svg = page.html.find(id="qr").find("svg")
    assert svg is not None and svg.find("title").get_text()
    # No script draws the QR code; the one script is the setup key's copy button's
    # (docs/decisions/0086-second-factor-building-blocks.md).
    assert [tag["src"] for tag in page.html.find_all("script")] == ["/portal/static/copy.js"]
    secret = page.html.find(id="secret-text").get_text().replace(" ", "")
    assert len(secret) == 32
    with engine.connect() as connection:
        sealed = connection.scalar(select(AuthenticatorApp.sealed_secret).where(
            AuthenticatorApp.account_id == _account_id(engine, email)))
    assert secret not in sealed  # sealed at rest

    # Not confirmed yet: the password alone still signs in.
    answer = submit(browser(app).get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    assert "second-step" not in answer.location

    wrong = submit(page, "confirm-app", code="000000" if totp_code(secret) != "000000" else "111111", status=400)
    assert error_summary(wrong) == ["The code is not right: type the 6 digits your app shows now"]
    assert wrong.html.find(id="code-error") is not None
    malformed = submit(page, "confirm-app", code="12a456", status=400)
    assert error_summary(malformed) == ["Enter the 6 digits your app shows, like 123 456"]

    shown = submit(page, "confirm-app", code=totp_code(secret), status=303)
    assert "/account/two-factor/recovery-codes?once=recovery-codes." in shown.location
    codes_page = shown.follow()
    codes = [item.get_text(strip=True) for item in codes_page.html.select("#recovery-codes li")]
    assert len(codes) == 10 == len(set(codes)) and all(len(code) == 11 and code[5] == "-" for code in codes)
    assert codes_page.headers["Cache-Control"] == "no-store"
    again = client.get(shown.location)
    assert "This set of recovery codes was shown once" in again.text and not again.html.select("#recovery-codes")
    with engine.connect() as connection:
        stored = connection.scalars(select(RecoveryCode.code_hash)).all()
    assert not set(codes) & set(stored) and all(code.replace("-", "") not in " ".join(stored) for code in codes)

    notice = mailed_to(mail, email, "A second factor was added to your Clinic Records account")
    assert "An authenticator app was added" in notice.text and secret not in notice.text
    assert client.get("/portal/account/two-factor").html.find(id="status").get_text() == "ON"


def test_the_second_step_takes_a_code_once_and_the_half_signed_in_browser_has_no_session(app, engine):
    client, email = signed_up(app)
    secret, _ = enrol_app(client)
    sessions_before = _count(engine, Session, account_id=_account_id(engine, email))

    half, step = log_in_to_second_step(app, email)
    assert "portal_session" not in half.cookies and "portal_sign_in" in half.cookies
    assert _count(engine, Session, account_id=_account_id(engine, email)) == sessions_before
    assert f"Signing in as {email}" in step.text
    assert half.get("/portal/", status=302).location.startswith("http://localhost/portal/login")

    wrong = submit(step, "second-step", code="123 45", status=400)
    assert error_summary(wrong) == ["The code is not right, or was used already: type a code from your app, or "
                                    "an unused recovery code"]
    code = totp_code(secret, 1)
    done = submit(wrong, "second-step", code=code, status=303)
    assert done.location == "http://localhost/portal/"
    assert half.get("/portal/").status_int == 200 and "portal_session" in half.cookies
    assert not half.cookies.get("portal_sign_in")
    assert _count(engine, PendingSignIn, account_id=_account_id(engine, email)) == 0

    # The same code again, from another browser: refused (a code is accepted once).
    other, step = log_in_to_second_step(app, email)
    replayed = submit(step, "second-step", code=code, status=400)
    assert "was used already" in error_summary(replayed)[0]
    assert other.get("/portal/", status=302)


def test_the_second_step_keeps_next_and_ends_with_a_fresh_session(app):
    client, email = signed_up(app)
    secret, _ = enrol_app(client)
    half = browser(app)
    login = half.get("/portal/login?next=/portal/account/password")
    answer = submit(login, "login", email=email, password=PASSWORD, status=303)
    assert answer.location.endswith("/portal/login/second-step?next=%2Fportal%2Faccount%2Fpassword")
    done = submit(answer.follow(), "second-step", code=totp_code(secret, 1), status=303)
    assert done.location == "http://localhost/portal/account/password"


def test_a_recovery_code_signs_in_once_and_mails_the_person(app, engine, mail):
    client, email = signed_up(app)
    _, codes = enrol_app(client)
    half, step = log_in_to_second_step(app, email)
    typed = codes[3].upper().replace("-", " ")  # case and separators do not matter
    submit(step, "second-step", code=typed, status=303)
    assert half.get("/portal/").status_int == 200
    notice = mailed_to(mail, email, "A recovery code was used to sign in to your Clinic Records account")
    assert "9 of your recovery codes are left unused" in notice.text and codes[3] not in notice.text

    _, step = log_in_to_second_step(app, email)
    used = submit(step, "second-step", code=codes[3], status=400)
    assert "was used already" in error_summary(used)[0]
    assert client.get("/portal/account/two-factor").html.find(id="codes").get_text().count("9 of your 10") == 1


def test_new_recovery_codes_void_the_old_ones(app):
    client, email = signed_up(app)
    _, old = enrol_app(client)
    page = client.get("/portal/account/two-factor/recovery-codes")
    assert "10 of your 10 recovery codes are unused" in page.text
    new_page = submit(page, "regenerate-codes", status=303).follow()
    new = [item.get_text(strip=True) for item in new_page.html.select("#recovery-codes li")]
    assert len(new) == 10 and not set(new) & set(old)
    _, step = log_in_to_second_step(app, email)
    submit(step, "second-step", code=old[0], status=400)
    submit(step, "second-step", code=new[0], status=303)


def test_recovery_codes_need_a_factor(app):
    client, _ = signed_up(app)
    page = client.get("/portal/account/two-factor/recovery-codes")
    refused = submit(page, "regenerate-codes", status=400)
    assert error_summary(refused) == ["Recovery codes come with a second factor: set one up first"]


def test_wrong_codes_are_throttled_apart_from_the_password(app):
    client, email = signed_up(app)
    enrol_app(client)
    half, step = log_in_to_second_step(app, email, address="10.34.0.1")
    for _ in range(5):
        step = submit(step, "second-step", code="999999", status=400)
        assert "not right" in error_summary(step)[0]
    step = submit(step, "second-step", code="999999", status=400)
    assert error_summary(step)[0].startswith("Too many wrong codes. Try again in ")
    # Wrong codes are no wrong passwords: the password step of that address still answers (and the codes stay
    # refused: tests/portal/test_wrong_codes.py).
    submit(browser(app, "10.34.0.1").get("/portal/login"), "login", email=email, password=PASSWORD, status=303)


def test_a_second_step_left_too_long_or_never_begun_leads_to_log_in(app, engine):
    client, email = signed_up(app)
    enrol_app(client)
    nobody = browser(app)
    page = nobody.get("/portal/login/second-step")
    assert "Log in first" in page.html.find(id="no-sign-in").text and "second-step" not in page.forms
    half, step = log_in_to_second_step(app, email)
    with engine.begin() as connection:
        connection.execute(PendingSignIn.__table__.update().values(expires_at=func.now()))
    assert half.get("/portal/login/second-step").html.find(id="no-sign-in") is not None
    late = submit(step, "second-step", code="123456", status=400)
    assert late.html.find(id="no-sign-in") is not None
    half.get("/portal/", status=302)


def test_a_passkey_is_added_named_renamed_and_removed_with_notices(app, engine, mail):
    client, email = signed_up(app)
    key = SoftwareAuthenticator()
    page = client.get("/portal/account/two-factor/passkeys")
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert page.html.find("script")["src"] == "/portal/static/passkeys.js"
    added = add_passkey(client, key)
    assert "recovery-codes?once=" in added.location  # the first factor brings the codes
    assert len(added.follow().html.select("#recovery-codes li")) == 10
    assert mailed_to(mail, email, "A second factor was added to your Clinic Records account").text.count(
        "A passkey named “Work laptop” was added") == 1
    with engine.connect() as connection:
        row = connection.execute(select(Passkey)).one()
    assert row.credential_id == key.credential_id and row.user_handle == key.user_handle
    assert email.encode() not in row.user_handle

    second = SoftwareAuthenticator()
    assert add_passkey(client, second, name="YubiKey").location.endswith("done=passkey-added")
    overview = client.get("/portal/account/two-factor")
    assert [td.get_text() for td in overview.html.select("#passkeys tbody tr td:first-child")] == [
        "Work laptop", "YubiKey"]
    with engine.connect() as connection:
        handles = connection.scalars(select(Passkey.user_handle)).all()
    assert len(set(handles)) == 1  # one random handle per person

    passkey_id = str(row.id)
    item = client.get(f"/portal/account/two-factor/passkeys/{passkey_id}")
    blank = submit(item, "rename-passkey", name="  ", status=400)
    assert error_summary(blank) == ["Give the passkey a name, such as the device it is on"]
    submit(item, "rename-passkey", name="Old laptop", status=303)
    item = client.get(f"/portal/account/two-factor/passkeys/{passkey_id}")
    assert "Passkey “Old laptop”" in item.text
    submit(item, "remove-passkey", status=303)
    removed = mailed_to(mail, email, "A second factor was removed from your Clinic Records account")
    assert "The passkey named “Old laptop” was removed" in removed.text
    client.get(f"/portal/account/two-factor/passkeys/{passkey_id}", status=404)
    assert _count(engine, RecoveryCode, account_id=_account_id(engine, email)) == 10  # YubiKey still there


def test_another_person_s_passkey_is_not_found(app):
    client, _ = signed_up(app)
    add_passkey(client, SoftwareAuthenticator())
    passkey_id = client.get("/portal/account/two-factor").html.select_one("#passkeys tbody a")["href"].rsplit(
        "/", 1)[1]
    other, _ = signed_up(app)
    other.get(f"/portal/account/two-factor/passkeys/{passkey_id}", status=404)
    other.get("/portal/account/two-factor/passkeys/not-a-uuid", status=404)


def test_a_passkey_answer_that_does_not_verify_adds_nothing(app, engine):
    client, email = signed_up(app)
    key = SoftwareAuthenticator()
    page = client.get("/portal/account/two-factor/passkeys")
    form = page.forms["add-passkey"]
    form["name"] = "Phone"
    form["credential"] = key.create(page.html.find(id="add-passkey")["data-passkey-options"], "http://evil.example")
    refused = form.submit(status=400)
    assert error_summary(refused) == ["The passkey could not be added: reload the page and try again"]
    empty = submit(client.get("/portal/account/two-factor/passkeys"), "add-passkey", name="Phone", status=400)
    assert "needs JavaScript for passkeys" in error_summary(empty)[0]
    # A ceremony is used once: the same page's answer posted twice adds one passkey.
    page = client.get("/portal/account/two-factor/passkeys")
    form = page.forms["add-passkey"]
    form["name"] = "Phone"
    form["credential"] = key.create(page.html.find(id="add-passkey")["data-passkey-options"], ORIGIN)
    form.submit(status=303)
    assert "open too long" in error_summary(form.submit(status=400))[0]
    assert _count(engine, Passkey, account_id=_account_id(engine, email)) == 1


def test_a_passkey_serves_as_the_second_step(app, engine):
    client, email = signed_up(app)
    key = SoftwareAuthenticator()
    add_passkey(client, key)
    half, step = log_in_to_second_step(app, email)
    assert "script-src 'self'" in step.headers["Content-Security-Policy"]
    form = step.forms["second-step-passkey"]
    options = step.html.find(id="second-step-passkey")["data-passkey-options"]
    assert json.loads(options)["allowCredentials"][0]["id"]
    answer = key.get(options, ORIGIN)
    form["credential"] = answer
    form.submit(status=303)
    assert half.get("/portal/").status_int == 200
    with engine.connect() as connection:
        assert connection.scalar(select(Passkey.sign_count)) == key.sign_count

    # The same answer again (its challenge was used): refused.
    _, step = log_in_to_second_step(app, email)
    form = step.forms["second-step-passkey"]
    form["credential"] = answer
    refused = form.submit(status=400)
    assert error_summary(refused)[0].startswith("That passkey did not sign you in")


def test_a_passkey_alone_signs_in_from_the_log_in_page(app, engine):
    client, email = signed_up(app)
    key = SoftwareAuthenticator()
    add_passkey(client, key)
    visitor = browser(app)
    login = visitor.get("/portal/login")
    csp = login.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp
    options = visitor.get("/portal/login/passkey/options")
    assert options.content_type == "application/json" and "portal_sign_in" in visitor.cookies
    assert json.loads(options.text)["userVerification"] == "required"
    form = login.forms["passkey-sign-in"]
    form["credential"] = key.get(options.text, ORIGIN)
    assert form.submit(status=303).location == "http://localhost/portal/"
    assert visitor.get("/portal/").status_int == 200

    # A verified answer without the ceremony's cookie (another browser) signs no one in.
    stranger = browser(app)
    login = stranger.get("/portal/login")
    form = login.forms["passkey-sign-in"]
    form["credential"] = key.get(visitor.get("/portal/login/passkey/options").text, ORIGIN)
    refused = form.submit(status=400)
    assert error_summary(refused) == ["That passkey did not sign you in: try again, or log in with your email and "
                                      "password"]
    stranger.get("/portal/", status=302)
    # Without JavaScript the form posts nothing: the page says what else to do.
    empty = submit(stranger.get("/portal/login"), "passkey-sign-in", status=400)
    assert "log in with your email and password" in error_summary(empty)[0]


def test_a_passkey_without_user_verification_does_not_sign_in_alone(app):
    client, _ = signed_up(app)
    key = SoftwareAuthenticator()
    add_passkey(client, key)
    key.verifies_user = False
    visitor = browser(app)
    login = visitor.get("/portal/login")
    form = login.forms["passkey-sign-in"]
    form["credential"] = key.get(visitor.get("/portal/login/passkey/options").text, ORIGIN)
    form.submit(status=400)
    visitor.get("/portal/", status=302)


def test_removing_the_app_mails_and_takes_the_codes_with_the_last_factor(app, engine, mail):
    client, email = signed_up(app)
    enrol_app(client)
    confirm = client.get("/portal/account/two-factor/app/remove")
    assert "recovery codes stop working too" in confirm.text
    submit(confirm, "remove-app", status=303)
    assert "A second factor was removed" in mailed_to(
        mail, email, "A second factor was removed from your Clinic Records account").subject
    account_id = _account_id(engine, email)
    assert _count(engine, AuthenticatorApp, account_id=account_id) == 0
    assert _count(engine, RecoveryCode, account_id=account_id) == 0
    answer = submit(browser(app).get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    assert "second-step" not in answer.location


def test_a_second_app_waits_for_the_first_to_be_removed(app):
    client, _ = signed_up(app)
    enrol_app(client)
    page = client.get("/portal/account/two-factor/app")
    assert "Your authenticator app is set up" in page.text and "start-app" not in page.forms
    # A form kept from before is refused by the service.
    stale_client, _ = signed_up(app)
    stale = stale_client.get("/portal/account/two-factor/app")
    enrol_app(stale_client)
    refused = submit(stale, "start-app", status=400)
    assert "remove it before setting up another" in error_summary(refused)[0]


@pytest.mark.parametrize("path", ["/portal/account/two-factor", "/portal/account/two-factor/app",
                                  "/portal/account/two-factor/recovery-codes",
                                  "/portal/account/two-factor/passkeys"])
def test_the_pages_need_a_session(app, path):
    assert browser(app).get(path, status=302).location.startswith("http://localhost/portal/login")


def test_only_the_passkey_pages_load_the_script(app):
    client, _ = signed_up(app)
    for path in ("/portal/", "/portal/account/two-factor", "/portal/account/two-factor/app",
                 "/portal/account/password", "/portal/account/two-factor/recovery-codes"):
        page = client.get(path)
        assert page.headers["Content-Security-Policy"] == PORTAL_HEADERS["Content-Security-Policy"], path
        assert "<script" not in page.text, path
    assert "<script" not in browser(app).get("/portal/signup").text


FACTOR_TABLES = ("authenticator_apps", "passkeys", "recovery_codes", "pending_sign_ins", "sessions",
                 "workspace_factor_rules", "portal_audit")


def _snapshot(engine):
    from sqlalchemy import text

    with engine.connect() as connection:
        return {table: sorted(map(repr, connection.execute(text(f"SELECT * FROM control.{table}")).all()))
                for table in FACTOR_TABLES}


def test_every_second_factor_form_forged_two_ways_changes_nothing(app, engine):
    from tests.portal.helpers import with_workspace

    client, workspace_id = with_workspace(app)
    email = client.get("/portal/").html.find(class_="who").get_text()
    enrol_app(client)
    add_passkey(client, SoftwareAuthenticator())
    passkey = client.get("/portal/account/two-factor").html.select_one("#passkeys tbody a")["href"]
    half, _ = log_in_to_second_step(app, email)
    pages = [(client, "/portal/account/two-factor/app/remove", "remove-app"),
             (client, "/portal/account/two-factor/recovery-codes", "regenerate-codes"),
             (client, "/portal/account/two-factor/passkeys", "add-passkey"),
             (client, passkey, "rename-passkey"), (client, passkey, "remove-passkey"),
             (client, f"/portal/workspaces/{workspace_id}/security", "factor-rule"),
             (half, "/portal/login/second-step", "second-step"),
             (browser(app), "/portal/login", "passkey-sign-in")]
    other, _ = signed_up(app)
    pages += [(other, "/portal/account/two-factor", "start-app")]
    forms = [(client_, client_.get(path).forms[form_id], form_id) for client_, path, form_id in pages]
    before = _snapshot(engine)  # the pages' GETs made their ceremonies' challenges: none of that is forged
    for client_, form, form_id in forms:
        fields = {name: field.value for name, field in form.field_order if name and name != "csrf_token"}
        refused = client_.post(form.action, fields, status=403)
        assert "Please try again" in refused.text, form_id
        forged = client_.post(form.action, {**fields, "csrf_token": form["csrf_token"].value},
                              headers={"Origin": "https://evil.example"}, status=403)
        assert "Please try again" in forged.text, form_id
    assert _snapshot(engine) == before
