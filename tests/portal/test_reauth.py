"""Decision 0091: re-authentication ("sudo mode") before sensitive actions. Signing in opens a 10-minute
window on the session; past it, each sensitive action sends the person to "Confirm it's you", which comes back
to where they were going (a POST: to "Continue where you were", the action as typed, with a way back to its
form), and each sensitive action done in the window renews it."""

import json
import re
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import func, select

from clinicrecords.access.models import ApiKey
from clinicrecords.identity.factors import NO_SUCH_CODE
from clinicrecords.identity.models import Invitation
from clinicrecords.portal.accounts.factors.confirm_passkey import REFUSED as PASSKEY_CONFIRM_REFUSED
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.portal.console_helpers import staff_browser
from tests.identity.software_authenticator import SoftwareAuthenticator
from tests.portal.helpers import (PASSKEY_ORIGIN, PASSWORD, add_passkey, confirm_its_you, create_key, enrol_app,
                                  error_summary, secret_of, submit, totp_code, unique_email, with_workspace)
from tests.portal.test_keys import _make_ready
from tests.portal.test_webhooks import with_endpoint

PAST_THE_WINDOW = 11  # minutes


def _next_of(answer):
    return parse_qs(urlsplit(answer.location).query)["next"][0]


HELD = "/portal/confirm/continue?once=resume."


def _held(answer, form_page):
    """A POST held back by "Confirm it's you": its next is "Continue where you were", whose page goes back to
    `form_page`. Returns that page, once confirmed."""
    assert _next_of(answer).startswith(HELD), _next_of(answer)
    page = confirm_its_you(answer).follow()
    assert page.html.find(id="back-to-form")["href"] == form_page
    return page


def _audit_count(engine, action):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(PortalAuditEntry)
                                 .where(PortalAuditEntry.action == action))


def _reveal(client, page_url):
    return submit(client.get(page_url), "reveal-secret", status=303)


def test_revealing_a_webhook_secret_asks_again_past_the_window_then_goes_back_to_the_endpoint(
        app, engine, receiver, session_clock):
    client, _, _, page_url = with_endpoint(app, receiver.url)
    assert "whsec_" in _reveal(client, page_url).follow().text  # just signed in: no question
    session_clock.move(minutes=PAST_THE_WINDOW)
    revealed = _audit_count(engine, "webhook.secret_revealed")
    refused = _reveal(client, page_url)
    assert _next_of(refused).startswith(HELD)  # to the action held, then to the page whose form posted
    assert _audit_count(engine, "webhook.secret_revealed") == revealed  # nothing revealed
    confirm_page = refused.follow()
    assert confirm_page.html.find("h1").get_text() == "Confirm it's you"
    wrong = submit(confirm_page, "confirm-password", password="not my password at all", status=400)
    assert error_summary(wrong) == ["Your password is not right"]
    assert wrong.html.find(id="password-error") is not None
    back = submit(wrong, "confirm-password", password=PASSWORD, status=303)
    assert back.location.startswith("http://localhost" + HELD)
    held = back.follow()
    assert held.html.find(id="back-to-form")["href"] == page_url
    assert "whsec_" in submit(held, "continue", status=303).follow().text
    assert _audit_count(engine, "webhook.secret_revealed") == revealed + 1


def test_the_window_is_ten_minutes_and_each_sensitive_action_renews_it(app, receiver, session_clock):
    client, _, _, page_url = with_endpoint(app, receiver.url)
    for _ in range(3):  # 9 minutes after the last sensitive action each time: 27 after signing in
        session_clock.move(minutes=9)
        assert "whsec_" in _reveal(client, page_url).follow().text
    session_clock.move(minutes=9)
    client.get(page_url)  # viewing pages is not a sensitive action: it renews nothing
    session_clock.move(minutes=1, seconds=1)
    assert "/portal/confirm?next=" in _reveal(client, page_url).location


def test_rotating_a_webhook_secret_asks_before_its_page(app, receiver, session_clock):
    client, _, _, page_url = with_endpoint(app, receiver.url)
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = client.get(page_url + "/rotate", status=303)
    assert _next_of(refused) == page_url + "/rotate"
    page = confirm_its_you(refused).follow()
    rotated = submit(page, "rotate", overlap="1h", status=303).follow()
    assert "whsec_" in rotated.text


def test_creating_a_live_key_asks_a_test_key_does_not(app, world, engine, session_clock):
    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id)
    session_clock.move(minutes=PAST_THE_WINDOW)
    assert secret_of(create_key(client, workspace_id, mode="test")).startswith("ehr_test_")
    keys = f"/portal/workspaces/{workspace_id}/keys"
    refused = client.get(keys + "/new?mode=live", status=303)
    assert _next_of(refused) == keys + "/new?mode=live"
    # The form was open before the window closed: its POST goes back to the live key's form, nothing made.
    form_page = client.get(keys + "/new")
    refused_post = submit(form_page, "new-key", mode="live", status=303)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(ApiKey).where(
            ApiKey.workspace_id == uuid.UUID(workspace_id), ApiKey.mode == "live")) == 0
    held = _held(refused_post, keys + "/new?mode=live")
    assert held.forms["continue"]["mode"].value == "live"
    assert secret_of(submit(held, "continue", status=303).follow()).startswith("ehr_live_")


def test_rolling_a_live_key_asks_rolling_a_test_key_does_not(app, world, session_clock):
    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id)
    test_key = _key_id(secret_of(create_key(client, workspace_id, mode="test")))
    live_key = _key_id(secret_of(create_key(client, workspace_id, mode="live")))
    session_clock.move(minutes=PAST_THE_WINDOW)
    keys = f"/portal/workspaces/{workspace_id}/keys"
    submit(client.get(f"{keys}/{test_key}/roll"), "roll", overlap="1h", status=303)
    refused = client.get(f"{keys}/{live_key}/roll", status=303)
    page = confirm_its_you(refused).follow()
    assert secret_of(submit(page, "roll", overlap="1h", status=303).follow()).startswith("ehr_live_")


def _key_id(secret):
    return re.match(r"ehr_(?:test|live)_([0-9a-f]+)_", secret).group(1)


def test_changing_the_ip_allow_list_asks(app, engine, session_clock):
    client, workspace_id = with_workspace(app)
    key_id = _key_id(secret_of(create_key(client, workspace_id)))
    page_url = f"/portal/workspaces/{workspace_id}/keys/{key_id}/ip-allow"
    form_page = client.get(page_url)
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = submit(form_page, "ip-allow", ip_allow="10.0.0.0/8", status=303)
    with engine.connect() as connection:
        assert connection.scalar(select(ApiKey.ip_allow).where(ApiKey.key_id == key_id)) in (None, [])
    page = _held(refused, page_url)
    submit(page, "continue", status=303)
    with engine.connect() as connection:
        assert connection.scalar(select(ApiKey.ip_allow).where(ApiKey.key_id == key_id)) == ["10.0.0.0/8"]


@pytest.mark.parametrize("role, asks", [("developer", False), ("owner", True)])
def test_inviting_an_owner_asks_inviting_a_developer_does_not(app, engine, session_clock, role, asks):
    client, workspace_id = with_workspace(app)
    members = f"/portal/workspaces/{workspace_id}/members"
    session_clock.move(minutes=PAST_THE_WINDOW)
    answer = submit(client.get(members), "invite", email=unique_email("new-member"), role=role, status=303)
    assert ("/portal/confirm?next=" in answer.location) is asks
    if asks:
        assert _invitations(engine, workspace_id=uuid.UUID(workspace_id)) == 0
        answer = submit(_held(answer, members), "continue", status=303)
    assert answer.location.startswith("http://localhost" + members)
    assert _invitations(engine, workspace_id=uuid.UUID(workspace_id)) == 1


def _invitations(engine, **where):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(Invitation).filter_by(**where))


@pytest.mark.parametrize("role, asks", [("clinician", False), ("admin", True), ("admin,clinician", True)])
def test_inviting_a_clinic_admin_asks(app, world, engine, session_clock, role, asks):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    staff = f"/portal/clinics/{clinic_id}/staff"
    before = _invitations(engine, clinic_id=clinic_id)  # the operator's, which brought the admin in
    session_clock.move(minutes=PAST_THE_WINDOW)
    answer = submit(admin.get(staff), "invite", email=unique_email("new-staff"), role=role, status=303)
    assert ("/portal/confirm?next=" in answer.location) is asks
    if asks:
        assert _invitations(engine, clinic_id=clinic_id) == before
        answer = submit(_held(answer, staff), "continue", status=303)
    assert _invitations(engine, clinic_id=clinic_id) == before + 1


def test_the_clinics_own_key_always_asks(app, world, session_clock):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    keys = f"/portal/clinics/{clinic_id}/keys"
    page = admin.get(keys)
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = submit(page, "new-key", status=303)
    created = submit(_held(refused, keys), "continue", status=303).follow()
    assert secret_of(created).startswith("ehr_live_")


def test_changing_the_email_renews_the_window_as_the_password_was_typed(app, receiver, session_clock):
    client, _, _, page_url = with_endpoint(app, receiver.url)
    session_clock.move(minutes=9)
    submit(client.get("/portal/account/email"), "email-change", email="moved@example.org", password=PASSWORD,
           status=303)
    session_clock.move(minutes=9)  # 18 after signing in, 9 after the password was typed
    assert "whsec_" in _reveal(client, page_url).follow().text


def test_a_password_change_keeps_this_browser_confirmed(app, receiver, session_clock):
    client, _, _, page_url = with_endpoint(app, receiver.url)
    session_clock.move(minutes=9)
    submit(client.get("/portal/account/password"), "password-change", current_password=PASSWORD,
           new_password="another long passphrase 77", status=303)
    session_clock.move(minutes=9)
    assert "whsec_" in _reveal(client, page_url).follow().text


@pytest.mark.parametrize("target", ["https://elsewhere.example/portal/", "//elsewhere.example/portal/",
                                    "/v1/me", "/portal/../v1/me", "javascript:alert(1)"])
def test_confirm_goes_back_only_to_a_portal_path(app, session_clock, target):
    client, _ = with_workspace(app)
    session_clock.move(minutes=PAST_THE_WINDOW)
    page = client.get("/portal/confirm", params={"next": target})
    assert page.forms["confirm-password"]["next"].value == ""
    answer = submit(page, "confirm-password", password=PASSWORD, status=303)
    assert answer.location == "http://localhost/portal/"


def test_the_confirm_page_refuses_an_unknown_method_and_throttles_guesses(app):
    client, _ = with_workspace(app)
    page = client.get("/portal/confirm?next=/portal/")
    form = page.forms["confirm-password"]
    form["method"].force_value("carrier-pigeon")
    assert error_summary(form.submit(status=400)) == ["Choose a way to confirm it's you"]
    for _ in range(5):
        submit(client.get("/portal/confirm"), "confirm-password", password="a wrong guess of it", status=400)
    throttled = submit(client.get("/portal/confirm"), "confirm-password", password=PASSWORD, status=400)
    assert error_summary(throttled)[0].startswith("Too many wrong passwords. Try again in")


def test_the_confirm_page_needs_a_session(app):
    from tests.portal.helpers import browser

    assert "/portal/login" in browser(app).get("/portal/confirm?next=/portal/", status=302).location


def test_a_second_factor_confirms_too_and_changing_ones_factors_asks(app, session_clock):
    """Adding or removing a factor (or new recovery codes) is sensitive; once the person has an authenticator app,
    "Confirm it's you" also takes its code (each code once) or a recovery code, not only the password."""
    client, _ = with_workspace(app)
    assert "confirm-code" not in client.get("/portal/confirm?next=/portal/").forms  # no factor: the password only
    secret, codes = enrol_app(client)  # just signed in: no question
    session_clock.move(minutes=PAST_THE_WINDOW)
    codes_page = "/portal/account/two-factor/recovery-codes"
    refused = submit(client.get(codes_page), "regenerate-codes", status=303)
    assert _next_of(refused).startswith(HELD)
    page = refused.follow()
    assert {"confirm-password", "confirm-code"} <= set(page.forms)
    wrong = submit(page, "confirm-code", code="000000", status=400)
    assert error_summary(wrong) == [NO_SUCH_CODE] and wrong.html.find(id="code-error") is not None
    confirmed_with = totp_code(secret, steps=1)  # kept: computed again later it may be the next step's code
    back = submit(wrong, "confirm-code", code=confirmed_with, status=303)
    assert back.location.startswith("http://localhost" + HELD)
    held = back.follow()
    assert held.html.find(id="back-to-form")["href"] == codes_page
    renewed = submit(held, "continue", status=303).follow()
    assert not set(codes) & {item.get_text(strip=True) for item in renewed.html.select("#recovery-codes li")}
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = submit(client.get("/portal/account/two-factor/app/remove"), "remove-app", status=303)
    replayed = submit(refused.follow(), "confirm-code", code=confirmed_with, status=400)
    assert error_summary(replayed) == [NO_SUCH_CODE]  # that code was used to confirm once already
    voided = submit(replayed, "confirm-code", code=codes[0], status=400)  # of the first set: void since renewed
    assert error_summary(voided) == [NO_SUCH_CODE]
    fresh = [item.get_text(strip=True) for item in renewed.html.select("#recovery-codes li")]
    back = submit(voided, "confirm-code", code=fresh[0], status=303)
    assert back.location.startswith("http://localhost" + HELD)
    submit(back.follow(), "continue", status=303)
    assert "confirm-code" not in client.get("/portal/confirm?next=/portal/").forms  # no factor left


def test_a_passkey_confirms_it_is_you_once_for_its_own_ceremony(app, session_clock):
    """A person with a passkey is offered it on "Confirm it's you" (the page then loads the portal's script): the
    page's own options answered by their authenticator confirm; the same answer again, another person's passkey
    or no answer at all (no JavaScript) does not."""
    client, _ = with_workspace(app)
    key = SoftwareAuthenticator()
    add_passkey(client, key)  # just signed in: no question
    assert "confirm-passkey" in client.get("/portal/confirm?next=/portal/").forms
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = client.get("/portal/account/two-factor/recovery-codes")
    refused = submit(refused, "regenerate-codes", status=303)
    page = refused.follow()
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    options = page.html.find(id="confirm-passkey")["data-passkey-options"]
    assert json.loads(options)["allowCredentials"], "the person's own passkeys only"
    form = page.forms["confirm-passkey"]
    form["credential"] = answer = key.get(options, PASSKEY_ORIGIN)
    back = form.submit(status=303)
    assert back.location.startswith("http://localhost" + HELD)
    assert back.follow().html.find(id="back-to-form")["href"] == "/portal/account/two-factor/recovery-codes"

    session_clock.move(minutes=PAST_THE_WINDOW)
    page = client.get("/portal/confirm?next=/portal/")
    form = page.forms["confirm-passkey"]
    form["credential"] = answer  # its challenge was used
    replayed = form.submit(status=400)
    assert error_summary(replayed) == [PASSKEY_CONFIRM_REFUSED]
    stranger_client, _ = with_workspace(app)
    stranger = SoftwareAuthenticator()
    add_passkey(stranger_client, stranger)
    form = replayed.forms["confirm-passkey"]
    form["credential"] = stranger.get(replayed.html.find(id="confirm-passkey")["data-passkey-options"],
                                      PASSKEY_ORIGIN)
    assert error_summary(form.submit(status=400)) == [PASSKEY_CONFIRM_REFUSED]
    empty = submit(client.get("/portal/confirm?next=/portal/"), "confirm-passkey", status=400)
    assert error_summary(empty) == [PASSKEY_CONFIRM_REFUSED]
    assert "/portal/confirm?next=" in submit(client.get("/portal/account/two-factor/recovery-codes"),
                                             "regenerate-codes", status=303).location  # still not confirmed
