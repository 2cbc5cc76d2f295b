"""Sign up, log in, log out, password change; sessions, cookies, CSRF and throttling."""

import datetime
import secrets

import pytest
import webtest
from argon2 import PasswordHasher
from pyramid.paster import get_appsettings
from sqlalchemy import func, select, update

from clinicrecords.identity.models import Account
from clinicrecords.identity.models import Session as PortalSession
from clinicrecords.identity.passwords import Passwords
from clinicrecords.settings import PortalSettings, read_section
from clinicrecords.identity.sessions import SessionRules, SessionService
from tests.conftest import ROOT
from tests.portal.helpers import PASSWORD, browser, error_summary, signed_up, submit, unique_email


def _accounts(engine, email):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(Account).where(Account.email == email))


def _log_in(client, email, password, status=303, address="127.0.0.1"):
    form = client.get("/portal/login").forms["login"]
    form["email"], form["password"] = email, password
    return form.submit(status=status, extra_environ={"REMOTE_ADDR": address})


def test_a_new_account_logs_in_and_stores_only_an_argon2id_hash(app, engine):
    client, email = signed_up(app)
    assert email in client.get("/portal/").text
    with engine.connect() as connection:
        stored = connection.scalar(select(Account.password_hash).where(Account.email == email))
    assert stored.startswith("$argon2id$") and PASSWORD not in stored


def test_argon2_parameters_are_the_librarys_defaults_unless_the_settings_lighten_them(settings):
    # argon2-cffi's RFC 9106 low-memory profile
    assert Passwords.from_settings(PortalSettings()).parameters == (3, 65536, 4)
    for shipped in ("production.ini", "development.ini"):
        assert not [name for name in get_appsettings(str(ROOT / shipped), "main") if name.startswith("portal.argon2")]
    light = Passwords.from_settings(read_section(PortalSettings, settings))
    assert light.parameters == (1, 64, 1)
    stored = light.hash(PASSWORD)
    assert "m=64,t=1,p=1" in stored and light.verify(stored, PASSWORD) and not light.verify(stored, PASSWORD + "x")
    assert not light.verify(None, PASSWORD)


def test_a_hash_made_with_other_parameters_is_replaced_at_the_next_log_in(app, engine):
    _, email = signed_up(app)
    with engine.begin() as connection:
        connection.execute(update(Account).where(Account.email == email).values(
            password_hash=PasswordHasher().hash(PASSWORD)))
    _log_in(browser(app), email, PASSWORD)
    with engine.connect() as connection:
        stored = connection.scalar(select(Account.password_hash).where(Account.email == email))
    assert "m=64,t=1,p=1" in stored and Passwords.from_settings(PortalSettings()).verify(stored, PASSWORD)


@pytest.mark.parametrize("email, password, field, message", [
    ("", PASSWORD, "email", "Enter your email address"),
    ("not-an-email", PASSWORD, "email", "Enter an email address in the right format"),
    ("{email}", "short pass", "password", "at least 12 characters"),
    ("{email}", "x" * 129, "password", "at most 128 characters"),
    ("{email}", "Password1234", "password", "less common password"),
    ("{email}", "{email} and more", "password", "does not contain your email"),
    ("{email}", "aaaaaaaaaaaaaaaa", "password", "one or two characters repeated"),
    ("{email}", "abababababababab", "password", "one or two characters repeated"),
])
def test_sign_up_refuses_bad_input_with_the_fields_message_and_keeps_the_email(app, engine, email, password, field,
                                                                             message):
    fresh = unique_email()
    email, password = email.format(email=fresh), password.format(email=fresh)
    client = browser(app)
    answer = submit(client.get("/portal/signup"), "signup", email=email, password=password, status=400)
    assert [m for m in error_summary(answer) if message in m]
    assert answer.html.find(class_="error-summary").find("a")["href"] == f"#{field}"
    assert answer.html.find(id=f"{field}-error") is not None
    assert answer.html.find(id="email")["value"] == email
    assert answer.html.find(id="password").get("value") is None  # a password is never sent back
    assert _accounts(engine, email.lower()) == 0


def test_a_form_without_its_csrf_token_changes_nothing(app, engine):
    client = browser(app)
    client.get("/portal/signup")
    email = unique_email()
    answer = client.post("/portal/signup", {"email": email, "password": PASSWORD}, status=403)
    assert "Nothing was changed" in answer.text
    assert _accounts(engine, email) == 0


def test_a_form_posted_from_another_origin_changes_nothing(app, engine):
    client = browser(app)
    form = client.get("/portal/signup").forms["signup"]
    email = unique_email()
    form["email"], form["password"] = email, PASSWORD
    form.submit(headers={"Origin": "https://evil.example"}, status=403)
    form.submit(headers={"Referer": "https://evil.example/page"}, status=403)
    assert _accounts(engine, email) == 0
    form.submit(headers={"Origin": "http://localhost"}, status=303)
    assert _accounts(engine, email) == 1


def test_a_signed_in_form_needs_the_sessions_own_token(app):
    client, _ = signed_up(app)
    form = client.get("/portal/workspaces/new").forms["workspace"]
    form["name"] = "Acme"
    form["csrf_token"] = client.cookies.get("portal_csrf")  # the pre-sign-in token no longer counts
    form.submit(status=403)


def test_log_in_starts_a_new_session_and_sets_a_safe_cookie(app, engine):
    _, email = signed_up(app)
    client = browser(app)
    client.get("/portal/login")
    client.set_cookie("portal_session", "planted-by-an-attacker")
    answer = _log_in(client, email, PASSWORD)
    cookie = [h for h in answer.headers.getall("Set-Cookie") if h.startswith("portal_session=")][0]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/portal" in cookie
    token = cookie.split(";")[0].split("=", 1)[1]
    assert token != "planted-by-an-attacker" and len(token) >= 40
    with engine.connect() as connection:
        stored = connection.scalars(select(PortalSession.token_hash)).all()
    assert token.encode() not in stored  # only a hash is kept
    signed_in = browser(app)
    signed_in.set_cookie("portal_session", token)
    assert email in signed_in.get("/portal/").text


def test_secure_cookies_outside_development(make_app):
    app = make_app(**{"portal.secure_cookies": "true"})
    client = webtest.TestApp(app, extra_environ={"wsgi.url_scheme": "https", "HTTP_HOST": "localhost:443"})
    email = unique_email()
    submit(client.get("/portal/signup"), "signup", email=email, password=PASSWORD, status=303)
    answer = submit(client.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    cookie = [h for h in answer.headers.getall("Set-Cookie") if "portal_session=" in h][0]
    assert cookie.startswith("__Host-portal_session=") and "Secure" in cookie and "Path=/;" in cookie


def test_an_unknown_email_and_a_wrong_password_get_the_same_answer(app):
    _, email = signed_up(app)
    wrong = _log_in(browser(app), email, "not the password at all", status=400)
    unknown = _log_in(browser(app), unique_email(), "not the password at all", status=400)
    assert error_summary(wrong) == error_summary(unknown) == ["Email or password is not right"]
    assert wrong.html.find(id="email")["value"] == email


def test_log_in_is_throttled_per_account_and_address_known_or_not(make_app):
    app = make_app(**{"portal.login_failures_per_account_and_address": "3"})
    _, email = signed_up(app)
    for target in (email, unique_email()):
        for _ in range(3):
            _log_in(browser(app), target, "wrong password here", status=400, address="10.0.0.1")
        answer = _log_in(browser(app), target, PASSWORD if target == email else "x", status=400,
                         address="10.0.0.1")
        assert error_summary(answer) == ["Too many attempts to log in. Try again in 15 minutes"]
    # Only that pair is refused: the owner's right password from another address still works.
    _log_in(browser(app), email, PASSWORD, address="10.0.0.2")


def test_log_in_is_throttled_per_address(make_app):
    app = make_app(**{"portal.login_failures_per_address": "3"})
    _, email = signed_up(app)
    for _ in range(3):
        _log_in(browser(app), unique_email(), "wrong password here", status=400, address="10.1.1.1")
    answer = _log_in(browser(app), email, PASSWORD, status=400, address="10.1.1.1")
    assert "Too many attempts" in error_summary(answer)[0]
    _log_in(browser(app), email, PASSWORD, address="10.1.1.2")


def test_log_out_ends_the_session_on_the_server(app):
    client, _ = signed_up(app)
    token = client.cookies["portal_session"]
    client.get("/portal/").forms["logout"].submit(status=303)
    replay = browser(app)
    replay.set_cookie("portal_session", token)
    assert replay.get("/portal/", status=302).location.startswith("http://localhost/portal/login")


def test_pages_need_a_session_and_come_back_after_log_in(app):
    _, email = signed_up(app)
    client = browser(app)
    answer = client.get("/portal/workspaces/new", status=302)
    form = client.get(answer.location).forms["login"]
    form["email"], form["password"] = email, PASSWORD
    assert form.submit(status=303).location.endswith("/portal/workspaces/new")


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "/v1/me"])
def test_log_in_never_sends_the_browser_off_the_portal(app, target):
    _, email = signed_up(app)
    client = browser(app)
    form = client.get("/portal/login", {"next": target}).forms["login"]
    form["email"], form["password"] = email, PASSWORD
    assert form.submit(status=303).location == "http://localhost/portal/"


def test_password_change(app):
    client, email = signed_up(app)
    other = browser(app)
    _log_in(other, email, PASSWORD)
    page = client.get("/portal/account/password")
    bad = submit(page, "password-change", current_password="wrong one entirely",
                 new_password="a brand new phrase 77", status=400)
    assert error_summary(bad) == ["Your current password is not right"]
    weak = submit(page, "password-change", current_password=PASSWORD, new_password="Password1234", status=400)
    assert "less common password" in error_summary(weak)[0]
    old_token = client.cookies["portal_session"]
    submit(client.get("/portal/account/password"), "password-change", current_password=PASSWORD,
           new_password="a brand new phrase 77", status=303)
    assert client.cookies["portal_session"] != old_token
    assert email in client.get("/portal/").text
    other.get("/portal/", status=302)  # every other browser was signed out
    _log_in(browser(app), email, PASSWORD, status=400)
    _log_in(browser(app), email, "a brand new phrase 77")


def test_sessions_end_when_idle_or_too_old(world, app):
    _, email = signed_up(app)
    now = [datetime.datetime(2031, 1, 1, 9, 0, tzinfo=datetime.UTC)]
    with world.db() as db:
        account_id = db.scalar(select(Account.id).where(Account.email == email))
        service = SessionService(db, SessionRules(datetime.timedelta(minutes=30), datetime.timedelta(minutes=15),
                                                  datetime.timedelta(hours=12), lambda: now[0]))
        token, _ = service.start(account_id)
    for minutes, alive in ((29, True), (29 + 29, True), (58 + 31, False)):
        now[0] = datetime.datetime(2031, 1, 1, 9, 0, tzinfo=datetime.UTC) + datetime.timedelta(minutes=minutes)
        with world.db() as db:
            service.db = db
            assert (service.resume(token) is not None) is alive
    with world.db() as db:
        service.db = db
        now[0] = datetime.datetime(2031, 2, 1, 9, 0, tzinfo=datetime.UTC)
        token, _ = service.start(account_id)
    for minutes in range(25, 12 * 60, 25):  # in use all along: only the absolute limit ends it
        now[0] = datetime.datetime(2031, 2, 1, 9, 0, tzinfo=datetime.UTC) + datetime.timedelta(minutes=minutes)
        with world.db() as db:
            service.db = db
            assert service.resume(token) is not None
    now[0] = datetime.datetime(2031, 2, 1, 21, 0, 1, tzinfo=datetime.UTC)
    with world.db() as db:
        service.db = db
        assert service.resume(token) is None


def test_pruning_removes_only_what_no_longer_counts(world, app):
    from clinicrecords.identity.models import LoginFailure
    from clinicrecords.portal.web.tasks import prune

    _, email = signed_up(app)
    now = datetime.datetime.now(datetime.UTC)  # the suite's other rows are all younger than a day
    with world.db() as db:
        account_id = db.scalar(select(Account.id).where(Account.email == email))
        db.query(PortalSession).filter(PortalSession.account_id == account_id).delete()
        hour = datetime.timedelta(hours=1)
        for created, ended in ((now - 40 * hour, None), (now - 2 * hour, None), (now - 30 * hour, now - 26 * hour),
                               (now - 3 * hour, now - 2 * hour)):
            db.add(PortalSession(token_hash=secrets.token_bytes(32), account_id=account_id, csrf_token="x",
                                 created_at=created, last_seen_at=created, ended_at=ended))
        db.add(LoginFailure(email=email, address="10.9.9.9", at=now - 30 * hour))
        db.add(LoginFailure(email=email, address="10.9.9.9", at=now - datetime.timedelta(minutes=5)))
    with world.db() as db:
        assert prune(db, PortalSettings(), now=now) == {"sessions": 2, "login_failures": 1, "known_devices": 0,
                                                      "second_step_failures": 0,
                                                      "one_time_reads": 0, "account_links": 0, "mail_requests": 0,
                                                      "pending_sign_ins": 0}
    with world.db() as db:
        left = db.query(PortalSession.created_at).filter(PortalSession.account_id == account_id).all()
        assert sorted(row.created_at for row in left) == [now - 3 * hour, now - 2 * hour]
