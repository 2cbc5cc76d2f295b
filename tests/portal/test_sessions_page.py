"""Decision 0092: a page listing one's active sessions (browser and system from the user agent, address,
signed in, last seen; this session marked), ending any other or all others (CSRF, audited); another person's
session id is refused. Staff sessions, which can see patient data, end after 15 idle minutes."""

import uuid

import pytest
import webtest
from sqlalchemy import select

from clinicrecords.identity.models import Account, Session
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import PASSWORD, signed_up, submit, with_workspace

FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
CHROME_ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0.6478.122 Mobile Safari/537.36")
SAFARI_IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                 "Version/17.5 Mobile/15E148 Safari/604.1")


def _log_in(app, email, address, user_agent):
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": address, "HTTP_USER_AGENT": user_agent})
    submit(client.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    return client


def _cards(page):
    return {card.find("h2").get_text(" ", strip=True): card for card in page.html.find_all(class_="session")}


def _audit(engine, account_email, action):
    """The account's own audit rows of `action` (other tests' rows may be committed beside them)."""
    with engine.connect() as connection:
        return connection.execute(select(PortalAuditEntry.target, PortalAuditEntry.details)
                                  .join(Account, Account.id == PortalAuditEntry.account_id)
                                  .where(PortalAuditEntry.action == action, Account.email == account_email)).all()


def _open_session(engine, email):
    """The id of the account's one open session."""
    with engine.connect() as connection:
        [session_id] = connection.scalars(select(Session.id).join(Account, Account.id == Session.account_id)
                                          .where(Account.email == email, Session.ended_at.is_(None))).all()
    return session_id


def test_the_page_lists_each_active_session_and_marks_this_one(app):
    client, email = signed_up(app)
    _log_in(app, email, "203.0.113.9", CHROME_ANDROID)
    _log_in(app, email, "203.0.113.10", SAFARI_IPHONE)
    page = client.get("/portal/account/sessions")
    cards = _cards(page)
    assert set(cards) == {"Unknown browser on an unknown system This session", "Chrome 126 on Android",
                          "Safari 17 on iOS"}
    facts = cards["Chrome 126 on Android"].find("dl").get_text(" ", strip=True)
    assert "Address 203.0.113.9" in facts and "Signed in 20" in facts and "Last seen 20" in facts
    assert cards["Unknown browser on an unknown system This session"].find("form") is None  # log out instead
    assert page.html.find(id="account-tab-sessions")["href"] == "/portal/account/sessions"


def test_ending_one_session_signs_that_browser_out_and_is_audited(app, engine):
    client, email = signed_up(app)
    other = _log_in(app, email, "203.0.113.9", FIREFOX_WINDOWS)
    kept = _log_in(app, email, "203.0.113.10", SAFARI_IPHONE)
    card = _cards(client.get("/portal/account/sessions"))["Firefox 128 on Windows"]
    form_id = card.find("form")["id"]
    ended = client.get("/portal/account/sessions").forms[form_id].submit(status=303).follow()
    assert ended.html.find(id="ended").find("h1").get_text() == "Session ended"
    assert "Firefox 128 on Windows" not in _cards(ended)
    assert "/portal/login" in other.get("/portal/", status=302).location
    kept.get("/portal/", status=200)
    assert [target for target, _ in _audit(engine, email, "session.ended")] == [form_id.removeprefix("end-")]


def test_ending_all_other_sessions_keeps_only_this_one(app, engine):
    client, email = signed_up(app)
    others = [_log_in(app, email, f"203.0.113.{n}", FIREFOX_WINDOWS) for n in (20, 21)]
    page = client.get("/portal/account/sessions").forms["end-others"].submit(status=303).follow()
    assert page.html.find(id="ended").find("h1").get_text() == "2 sessions ended"
    assert list(_cards(page)) == ["Unknown browser on an unknown system This session"]
    assert page.html.find(id="end-others") is None and page.html.find(id="only-this") is not None
    for other in others:
        other.get("/portal/", status=302)
    client.get("/portal/", status=200)
    assert [details for _, details in _audit(engine, email, "session.ended_others")] == [{"sessions": 2}]


def test_another_persons_session_id_is_refused_and_theirs_goes_on(app, engine):
    client, _ = signed_up(app)
    someone, someone_email = signed_up(app)
    theirs = _open_session(engine, someone_email)
    page = client.get("/portal/account/sessions")
    token = page.forms["logout"]["csrf_token"].value
    for forged in (str(theirs), str(uuid.uuid4()), "not-a-session"):
        client.post("/portal/account/sessions/end", {"session_id": forged, "csrf_token": token}, status=404)
    someone.get("/portal/", status=200)


def test_ending_a_session_needs_the_forms_csrf_token(app):
    client, email = signed_up(app)
    other = _log_in(app, email, "203.0.113.9", FIREFOX_WINDOWS)
    form_id = _cards(client.get("/portal/account/sessions"))["Firefox 128 on Windows"].find("form")["id"]
    form = client.get("/portal/account/sessions").forms[form_id]
    form["csrf_token"] = "forged"
    form.submit(status=403)
    client.post("/portal/account/sessions/end-others", {}, status=403)
    other.get("/portal/", status=200)


def test_ending_this_session_from_the_page_is_logging_out(app, engine):
    client, email = signed_up(app)
    page = client.get("/portal/account/sessions")
    mine = _open_session(engine, email)
    answer = client.post("/portal/account/sessions/end", {"session_id": str(mine),
                                                           "csrf_token": page.forms["logout"]["csrf_token"].value},
                         status=303)
    assert answer.location.endswith("/portal/login")
    client.get("/portal/", status=302)


@pytest.mark.parametrize("minutes, developer_in, staff_in", [(14, True, True), (16, True, False),
                                                             (31, False, False)])
def test_staff_sessions_end_after_fifteen_idle_minutes(app, world, session_clock, minutes, developer_in,
                                                       staff_in):
    developer, _ = with_workspace(app)
    staff, _ = staff_browser(app, world.clinic(), "clinician")
    session_clock.move(minutes=minutes)
    for client, signed_in in ((developer, developer_in), (staff, staff_in)):
        assert client.get("/portal/account/sessions", status="*").status_int == (200 if signed_in else 302)
