"""Finding the way, as a new partner and new clinic staff walk it: one Account page with the person's email,
password, two-factor, sessions and notifications as its tabs (the masthead's one "Account" link); the
workspace's Security setting as a tab; staff signed out after 15 idle minutes land on the console's log-in,
which says why; the staff's invitation page offers no developer sign-up; the Domain tab says the workspace is
verified when the overview does. And the bands shown once: their copy buttons (the portal's copy script, allowed
on those answers only) and the recovery codes as a text file."""

import re
import urllib.parse

import pytest

from tests.common.cli import ok
from tests.portal.console_helpers import path_of, set_password_link, staff_browser
from tests.portal.helpers import (browser, create_key, enrol_app, secret_of, signed_up, submit, unique_email,
                                  with_workspace)

ACCOUNT_TABS = [("Account", "/portal/account"), ("Email address", "/portal/account/email"),
                ("Password", "/portal/account/password"), ("Two-factor", "/portal/account/two-factor"),
                ("Sessions", "/portal/account/sessions"), ("Notifications", "/portal/account/notifications")]


def _nav(page, label):
    """(text, href, current) of the links of the page's navigation `label`."""
    nav = page.html.find("nav", attrs={"aria-label": label})
    return [(a.get_text(strip=True), a["href"], a.get("aria-current") == "page") for a in nav.find_all("a")]


def _fact(page, name):
    return page.html.find(id=f"account-{name}").get_text(" ", strip=True)


def test_the_masthead_leads_to_one_account_page_whose_tabs_are_its_parts(app):
    client, email = signed_up(app, verified=False)
    home = client.get("/portal/")
    assert [text for text, _, _ in _nav(home, "Account") if text != "API reference"] == ["Account"]
    page = home.click("Account", href="/portal/account$")
    assert page.html.h1.get_text() == "Your account"
    assert [(text, href) for text, href, _ in _nav(page, "Your account")] == ACCOUNT_TABS
    assert email in _fact(page, "email") and "not verified yet" in _fact(page, "email")
    assert "Off" in _fact(page, "two-factor") and "Signed in on 1 browser " in _fact(page, "sessions")
    for (label, path), name in zip(ACCOUNT_TABS[1:], ("email", "password", "two-factor", "sessions",
                                                      "notifications")):
        assert page.html.find(id=f"account-{name}").find("a")["href"] == path
        part = client.get(path)
        assert (label, path, True) in _nav(part, "Your account"), label
    # The password page no longer hides the email's page at its foot: the tabs lead there.
    assert "email-link" not in client.get("/portal/account/password").text

    enrol_app(client)
    page = client.get("/portal/account")
    assert "On an authenticator app, 10 recovery codes left." in _fact(page, "two-factor")


def test_the_account_page_needs_a_session(app):
    answer = browser(app).get("/portal/account", status=302)
    assert answer.location.endswith("/portal/login?next=%2Fportal%2Faccount")


def test_security_is_a_tab_of_every_workspace_page(app):
    client, workspace_id = with_workspace(app)
    security = f"/portal/workspaces/{workspace_id}/security"
    for path in ("", "/keys", "/members", "/domain"):
        page = client.get(f"/portal/workspaces/{workspace_id}{path}")
        assert ("Security", security, False) in _nav(page, "Workspace"), path
    page = client.get(f"/portal/workspaces/{workspace_id}").click("Security", href=security)
    assert ("Security", security, True) in _nav(page, "Workspace")
    assert [label for label, _, current in _nav(page, "Workspace") if current] == ["Security"]


def test_the_staff_invitation_page_offers_no_developer_sign_up(app, world):
    link, _ = set_password_link(str(world.clinic()), "clinician")
    page = browser(app).get(path_of(link))
    assert page.forms["join"] and "clinic console" in page.html.find(class_="brand").get_text()
    assert not [a["href"] for a in page.html.find_all("a") if "/signup" in a["href"]]
    # The developer portal's own pages still offer it.
    assert browser(app).get("/portal/login").html.find("a", href=re.compile("/portal/signup"))


@pytest.mark.parametrize("who, minutes", [("staff", 16), ("developer", 31)])
def test_signed_out_when_idle_the_log_in_says_why_and_staff_land_on_the_console(app, world, session_clock, who,
                                                                                 minutes):
    clinic_id = world.clinic()
    if who == "staff":
        client, email = staff_browser(app, clinic_id, "clinician", second_factor=False)
        start = f"/portal/clinics/{clinic_id}"
    else:
        client, email = signed_up(app)
        start = "/portal/"
    session_clock.move(minutes=minutes)
    page = client.get(start, status=302).follow()
    assert page.request.path == "/portal/login"
    said = page.html.find(id="signed-out").get_text(" ", strip=True)
    brand = page.html.find(class_="brand").get_text(" ", strip=True)
    signs_up = page.html.find("a", href=re.compile("/portal/signup"))
    if who == "staff":
        assert "after 15 minutes without activity" in said and "patient data" in said
        assert brand == "Clinic Records clinic console" and signs_up is None
    else:
        assert "after 30 minutes without activity" in said and "patient data" not in said
        assert brand == "Clinic Records developer portal" and signs_up is not None
    answer = submit(page, "login", email=email, password="correct horse battery staple 42", status=303)
    assert answer.location.endswith(start)
    assert client.get(start).status_int == 200


def test_the_log_in_says_nothing_of_idleness_after_a_log_out_or_for_a_new_visitor(app, session_clock):
    assert browser(app).get("/portal/login").html.find(id="signed-out") is None
    client, _ = signed_up(app)
    submit(client.get("/portal/"), "logout", status=303)
    session_clock.move(minutes=31)
    assert client.get("/portal/login").html.find(id="signed-out") is None


def test_a_console_page_asked_for_without_a_session_leads_to_the_console_s_log_in(app, world):
    clinic_id = world.clinic()
    page = browser(app).get(f"/portal/clinics/{clinic_id}/queue", status=302).follow()
    assert page.html.find(class_="brand").get_text(" ", strip=True) == "Clinic Records clinic console"
    assert page.html.find("a", href=re.compile("/portal/signup")) is None


def test_the_domain_tab_says_verified_when_the_overview_does(app):
    client, workspace_id = with_workspace(app)
    assert client.get(f"/portal/workspaces/{workspace_id}/domain").html.find(id="workspace-verified") is None
    ok("workspace", "set", workspace_id, "--verified")
    overview = client.get(f"/portal/workspaces/{workspace_id}")
    line = overview.html.find("li", string=re.compile("domain is verified"))
    assert "ok" in line["class"]
    domain = client.get(f"/portal/workspaces/{workspace_id}/domain")
    said = domain.html.find(id="workspace-verified").get_text(" ", strip=True)
    assert "Your workspace is verified" in said and "live keys do not need a domain entered here" in said
    submit(domain, "domain-form", domain="example.org", status=303)
    said = client.get(f"/portal/workspaces/{workspace_id}/domain").html.find(id="workspace-verified")
    assert "the domain below, which is pending" in said.get_text(" ", strip=True)


def _copy_button(page, band):
    button = page.html.find("button", attrs={"data-copy": band})
    assert button is not None and button.has_attr("hidden"), band  # the script shows it
    return button


def _loads_copy_script(page):
    scripts = [tag["src"] for tag in page.html.find_all("script")]
    return scripts == ["/portal/static/copy.js"] and "script-src 'self'" in page.headers["Content-Security-Policy"]


def test_keys_secrets_and_one_time_links_have_a_copy_button_allowed_by_the_policy_of_their_page_only(app):
    client, workspace_id = with_workspace(app)
    created = create_key(client, workspace_id)
    assert _copy_button(created, "secret").get_text(strip=True) == "Copy the key" and secret_of(created)
    assert _loads_copy_script(created)
    assert "connect-src" not in created.headers["Content-Security-Policy"]
    keys = client.get(f"/portal/workspaces/{workspace_id}/keys")
    assert "script-src" not in keys.headers["Content-Security-Policy"] and "<script" not in keys.text

    members = client.get(f"/portal/workspaces/{workspace_id}/members")
    invited = submit(members, "invite", email=unique_email("copied"), role="developer", status=303).follow()
    assert _copy_button(invited, "invitation-link").get_text(strip=True) == "Copy the link"
    assert _loads_copy_script(invited)
    assert "script-src" not in client.get(invited.request.path_qs).headers["Content-Security-Policy"]

    app_page = submit(client.get("/portal/account/two-factor"), "start-app", status=303).follow()
    assert _copy_button(app_page, "secret-text").has_attr("data-copy-compact") and _loads_copy_script(app_page)

    script = client.get("/portal/static/copy.js")
    assert script.content_type in ("application/javascript", "text/javascript")
    assert "navigator.clipboard.writeText" in script.text


def test_recovery_codes_download_as_text_from_the_page_that_shows_them_once(app):
    client, email = signed_up(app)
    page = submit(client.get("/portal/account/two-factor"), "start-app", status=303).follow()
    from tests.portal.helpers import totp_code

    secret = page.html.find(id="secret-text").get_text().replace(" ", "")
    codes_page = submit(page, "confirm-app", code=totp_code(secret), status=303).follow()
    codes = [item.get_text(strip=True) for item in codes_page.html.select("#recovery-codes li")]
    link = codes_page.html.find(id="download-codes")
    assert link["download"] == "clinic-records-recovery-codes.txt"
    kind, _, body = link["href"].partition(",")
    assert kind == "data:text/plain;charset=utf-8"
    text = urllib.parse.unquote(body)
    assert text.splitlines()[0] == f"Clinic Records recovery codes for {email}"
    assert text.splitlines()[-10:] == codes and len(set(codes)) == 10
    again = client.get(codes_page.request.path_qs)
    assert again.html.find(id="download-codes") is None and not any(code in again.text for code in codes)
