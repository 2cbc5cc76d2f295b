"""Who must use a second factor (decision 0098), and what a browser half-way through signing in opens (decision
0097): clinic staff are led to enrol before the review queue or the access report opens, in every clinic, and come
back once they have; a workspace's owner requires a second factor of every member; an operator removes a
person's factors (`account reset-factors`); a browser past the password but not the second step opens no page
that needs a session."""

import re
import uuid
from urllib.parse import quote

import pytest
from sqlalchemy import select

from clinicrecords.api.route_table import route_table
from clinicrecords.identity.models import Account, AuthenticatorApp, Passkey, RecoveryCode, Session
from clinicrecords.portal.web.headers import PORTAL_HEADERS
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import ok, refused
from tests.identity.software_authenticator import SoftwareAuthenticator
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import (PASSWORD, add_passkey, browser, enrol_app, error_summary, joined_as_developer,
                                  log_in_to_second_step, mailed_to, signed_up, submit, totp_code,
                                  with_workspace)


def _led_to_enrol(answer, reason, back=None):
    assert answer.status_int == 303
    location = answer.location
    assert location.startswith("http://localhost/portal/account/two-factor?required=" + reason), location
    if back:
        assert location.endswith("&next=" + quote(back, safe=""))


def test_a_clinician_without_a_factor_is_led_to_enrol_before_the_queue_and_comes_back(app, world):
    clinic_id = world.clinic()
    client, _ = staff_browser(app, clinic_id, "clinician", second_factor=False)
    assert client.get(f"/portal/clinics/{clinic_id}").status_int == 200  # no patient data: it opens
    queue = f"/portal/clinics/{clinic_id}/queue"
    for path in (queue, queue + "/reviews", queue + "?patient=Ada"):
        _led_to_enrol(client.get(path), "patient_data", back=path)
    page = client.get(queue).follow()
    assert "Clinic staff set up a second factor before any page that shows patient data opens" in page.html.find(
        id="required").text
    # A form posted to the queue is led there too, changing nothing.
    _led_to_enrol(client.post(f"{queue}/reviews", {"csrf_token": client.get(
        f"/portal/clinics/{clinic_id}").html.find("input", attrs={"name": "csrf_token"})["value"]}), "patient_data")

    # The page keeps the way back through the app's set-up and its recovery codes.
    setup = submit(page, "start-app", status=303)
    assert "next=" in setup.location
    app_page = setup.follow()
    secret = app_page.html.find(id="secret-text").get_text().replace(" ", "")
    codes = submit(app_page, "confirm-app", code=totp_code(secret), status=303).follow()
    assert codes.html.find(id="saved")["href"] == queue
    assert client.get(codes.html.find(id="saved")["href"]).status_int == 200


def test_an_admin_is_led_to_enrol_before_the_access_report_in_every_clinic(app, world):
    first, second = world.clinic(), world.clinic()
    admin, email = staff_browser(app, first, "admin", second_factor=False)
    _led_to_enrol(admin.get(f"/portal/clinics/{first}/access"), "patient_data")
    _led_to_enrol(admin.get(f"/portal/clinics/{first}/access/export.csv"), "patient_data")
    assert admin.get(f"/portal/clinics/{first}/keys").status_int == 200  # no patient data
    other, _ = staff_browser(app, second, "admin")  # has a factor: opens
    assert other.get(f"/portal/clinics/{second}/access").status_int == 200
    add_passkey(admin, SoftwareAuthenticator())  # a passkey counts as well as an app
    assert admin.get(f"/portal/clinics/{first}/access").status_int == 200


def test_a_workspace_owner_requires_a_second_factor_of_every_member(app, engine):
    owner, workspace_id = with_workspace(app)
    developer = joined_as_developer(app, owner, workspace_id)
    security = owner.get(f"/portal/workspaces/{workspace_id}/security")
    assert security.html.find(id="rule").get_text() == "OPTIONAL"
    refused_page = submit(security, "factor-rule", required=True, status=400)
    assert error_summary(refused_page)[0].startswith("Set up your own second factor first")
    enrol_app(owner)
    saved = submit(owner.get(f"/portal/workspaces/{workspace_id}/security"), "factor-rule", required=True,
                   status=303).follow()
    assert saved.html.find(id="rule").get_text() == "REQUIRED"
    assert [tag.get_text() for tag in saved.html.select("#member-factors td .tag")] == ["ON", "NONE"]

    for path in ("", "/keys", "/members", "/security"):
        _led_to_enrol(developer.get(f"/portal/workspaces/{workspace_id}{path}"), "workspace")
    assert "An owner of your workspace requires a second factor" in developer.get(
        f"/portal/workspaces/{workspace_id}").follow().text
    assert developer.get("/portal/").status_int == 200  # the list of workspaces: a way on, not a dead end
    developer.post(f"/portal/workspaces/{workspace_id}/security", {"required": ""}, status=403)  # CSRF first
    enrol_app(developer)
    page = developer.get(f"/portal/workspaces/{workspace_id}/security")
    assert page.status_int == 200 and "factor-rule" not in page.forms  # a developer cannot change it
    with engine.connect() as connection:
        actions = connection.scalars(select(PortalAuditEntry.action).where(
            PortalAuditEntry.workspace_id == uuid.UUID(workspace_id))).all()
    assert "workspace.second_factor_required" in actions

    submit(owner.get(f"/portal/workspaces/{workspace_id}/security"), "factor-rule", required=False, status=303)
    other = joined_as_developer(app, owner, workspace_id)
    assert other.get(f"/portal/workspaces/{workspace_id}").status_int == 200


def test_account_reset_factors_removes_them_ends_the_sessions_and_mails(app, engine, mail):
    client, email = signed_up(app)
    enrol_app(client)
    add_passkey(client, SoftwareAuthenticator())
    result = ok("account", "reset-factors", "--email", email.upper())
    assert result == {"email": email, "factors_removed": 2, "sessions_ended": 1}
    client.get("/portal/", status=302)
    with engine.connect() as connection:
        account_id = connection.scalar(select(Account.id).where(Account.email == email))
        for model in (AuthenticatorApp, Passkey, RecoveryCode):
            assert connection.scalar(select(model.id).where(model.account_id == account_id)) is None
        assert connection.scalar(select(Session.id).where(Session.account_id == account_id,
                                                          Session.ended_at.is_(None))) is None
        audit = connection.execute(select(PortalAuditEntry).where(
            PortalAuditEntry.action == "account.factors_reset", PortalAuditEntry.target == email)).one()
    assert audit.account_id is None and audit.details == {"factors_removed": 2, "sessions_ended": 1}
    notice = mailed_to(mail, email, "The second factors of your Clinic Records account were removed")
    assert "(2 in all)" in notice.text
    answer = submit(browser(app).get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    assert "second-step" not in answer.location
    refused("account", "reset-factors", "--email", "nobody-34@example.org")


def _fill(path, ids):
    return re.sub(r"\{([a-z_]+)\}", lambda match: ids.get(match.group(1), str(uuid.uuid4())), path)


@pytest.mark.parametrize("factor", ["app", "passkey"])
def test_adding_a_factor_signs_out_the_sessions_opened_with_the_password_alone(app, world, factor):
    """A clinician signed in with the password alone in one browser (sent to set up a factor) adds one in
    another: the first browser's session ends, so it never reads the queue without a second step."""
    clinic_id = world.clinic()
    enrolling, email = staff_browser(app, clinic_id, "clinician", second_factor=False)
    other = browser(app, "10.46.0.1")
    submit(other.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    queue = f"/portal/clinics/{clinic_id}/queue"
    _led_to_enrol(other.get(queue), "patient_data", back=queue)
    if factor == "app":
        secret, _ = enrol_app(enrolling)
    else:
        add_passkey(enrolling, SoftwareAuthenticator())
    assert enrolling.get(queue).status_int == 200  # the browser that proved the new factor goes on
    assert other.get(queue, status=302).location.startswith("http://localhost/portal/login")
    other.get("/portal/", status=302)
    # Signing in again there asks for the second step before any page.
    again = submit(other.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    assert "/portal/login/second-step" in again.location
    other.get(queue, status=302)
    if factor == "app":
        submit(again.follow(), "second-step", code=totp_code(secret, 1), status=303)
        assert other.get(queue).status_int == 200


def test_a_browser_half_way_through_signing_in_opens_nothing_else(app):
    owner, workspace_id = with_workspace(app)
    email = owner.get("/portal/").html.find(class_="who").get_text()
    enrol_app(owner)
    half, _ = log_in_to_second_step(app, email)
    ids = {"workspace_id": workspace_id}
    walked = 0
    for route in route_table(app.registry):
        if route.method != "GET" or not route.path.startswith("/portal"):
            continue
        answer = half.get(_fill(route.path, ids), expect_errors=True)
        walked += 1
        if route.public:
            assert answer.status_int < 500, route
            if route.path != "/portal/login/second-step":
                assert email not in answer.text, route
            continue
        assert answer.status_int == 302, route
        assert answer.location.startswith("http://localhost/portal/login?next="), route
    assert walked > 60
    assert "portal_session" not in half.cookies


SCRIPT_PAGES = {"/portal/login", "/portal/login/second-step", "/portal/account/two-factor/passkeys"}


def test_every_other_page_keeps_the_policy_without_script(app):
    """Walks every portal GET a signed-in member (and a visitor) can reach: only the pages that load the passkey
    script allow it."""
    owner, workspace_id = with_workspace(app)
    ids = {"workspace_id": workspace_id}
    default = PORTAL_HEADERS["Content-Security-Policy"]
    seen = set()
    for client in (owner, browser(app)):
        for route in route_table(app.registry):
            if route.method != "GET" or not route.path.startswith("/portal") or route.path in SCRIPT_PAGES:
                continue
            answer = client.get(_fill(route.path, ids), expect_errors=True)
            assert answer.headers["Content-Security-Policy"] == default, route
            assert "<script" not in answer.text, route
            seen.add(route.path)
    assert len(seen) > 60
    assert "script-src 'self'" in owner.get("/portal/account/two-factor/passkeys").headers["Content-Security-Policy"]
