"""The people layer's pages where a new partner or new clinic staff got lost: an invitation link that no longer
works says what happened to it; a person who signs up from an invitation is not asked to verify the address the
invitation proved, and the next page leads back to the invitation; "Confirm it's you" comes back to the action
with its form as typed; a workspace invitation followed as clinic staff says what is wrong and offers to switch
account; the only owner's (admin's) Leave page says why not at once, with no button that would only refuse."""

import datetime
import uuid
from urllib.parse import parse_qs, urlsplit

from sqlalchemy import func, select, update

from clinicrecords.access.models import ApiKey
from clinicrecords.identity.models import Account, Invitation
from tests.portal.console_helpers import path_of, set_password_link, staff_browser
from tests.portal.helpers import (PASSWORD, browser, confirm_its_you, error_summary, mailed_to, portal_path,
                                  secret_of, signed_up, submit, unique_email, with_workspace)
from tests.portal.test_keys import _make_ready
from tests.portal.test_webhooks import with_endpoint

PAST_THE_WINDOW = 11  # minutes: "Confirm it's you" asks again


def _invite_to_workspace(owner, workspace_id, email, mail):
    submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email, role="developer",
           status=303)
    return portal_path(mailed_to(mail, email, "You are invited to join the workspace Acme Health on Clinic Records")
                       .link("/invitations"))


def _problem(page):
    return page.html.find(id="link-problem")


def test_invitation_links_that_no_longer_work_say_what_happened(app, world, mail, engine):
    # Used: the operator's staff link, once a password was set with it.
    clinic_id = world.clinic()
    link, _ = set_password_link(clinic_id, "clinician")
    submit(browser(app).get(path_of(link)), "join", password=PASSWORD, status=303)
    used = browser(app).get(path_of(link), status=410)
    assert used.html.find("h1").get_text() == "This invitation was already used"
    assert "Page not found" not in used.text and _problem(used)["data-state"] == "used"
    assert "clinic console" in used.text  # the staff link's face
    # Cancelled: a workspace's, by its owner; the page and the join button both say so.
    owner, workspace_id = with_workspace(app)
    invitee, email = signed_up(app)
    link = _invite_to_workspace(owner, workspace_id, email, mail)
    join_form = invitee.get(link).forms["join"]
    page = owner.get(f"/portal/workspaces/{workspace_id}/members")
    page.forms[next(name for name in page.forms if str(name).startswith("cancel-"))].submit(status=303)
    cancelled = invitee.get(link, status=410)
    assert cancelled.html.find("h1").get_text() == "This invitation was cancelled"
    assert "ask them for a new invitation" in _problem(cancelled).get_text()
    assert join_form.submit(status=410).html.find("h1").get_text() == "This invitation was cancelled"
    # Expired.
    other_email = unique_email("late")
    late = _invite_to_workspace(owner, workspace_id, other_email, mail)
    with engine.begin() as connection:
        connection.execute(update(Invitation).where(Invitation.email == other_email)
                           .values(expires_at=datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)))
    expired = browser(app).get(late, status=410)
    assert expired.html.find("h1").get_text() == "This invitation has expired"
    # A token no invitation has: still a page about the link, not "Page not found".
    unknown = browser(app).get("/portal/invitations?token=not-a-token", status=404)
    assert unknown.html.find("h1").get_text() == "This invitation link does not work"
    assert browser(app).get("/portal/staff-invitations", status=404).html.find(id="link-problem") is not None


def test_signing_up_from_an_invitation_asks_no_verification_and_leads_back_to_it(app, mail, engine):
    owner, workspace_id = with_workspace(app)
    email = unique_email("invitee")
    link = _invite_to_workspace(owner, workspace_id, email, mail)
    person = browser(app, "198.51.100.251")
    signup_page = person.get(person.get(link).html.find(id="signup-link")["href"])
    mail.clear()
    sent = submit(signup_page, "signup", email=email, password=PASSWORD, status=303).follow()
    assert sent.html.find("h1").get_text() == "Log in to join"
    assert "Check your email" not in sent.text
    login_link = sent.html.find(id="log-in-to-join")["href"]
    assert parse_qs(urlsplit(login_link).query)["next"] == [link]
    with engine.connect() as connection:
        assert connection.scalar(select(Account.email_verified_at).where(Account.email == email)) is not None
    answer = submit(person.get(login_link), "login", email=email, password=PASSWORD, status=303)
    assert answer.location.endswith(link)
    joined = submit(answer.follow(), "join", status=303)
    assert f"/portal/workspaces/{workspace_id}" in joined.location
    assert [message.subject for message in mail.messages() if message.to == [email]] == []  # no "Verify..."


def test_signing_up_from_an_invitation_for_another_address_still_verifies_that_address(app, mail, engine):
    owner, workspace_id = with_workspace(app)
    link = _invite_to_workspace(owner, workspace_id, unique_email("invited"), mail)
    other = unique_email("other")
    person = browser(app, "198.51.100.252")
    signup_page = person.get(person.get(link).html.find(id="signup-link")["href"])
    submit(signup_page, "signup", email=other, password=PASSWORD, status=303)
    mailed_to(mail, other, "Verify your email address for Clinic Records")
    with engine.connect() as connection:
        assert connection.scalar(select(Account.email_verified_at).where(Account.email == other)) is None


def test_confirm_it_s_you_comes_back_to_a_live_key_s_form_as_typed(app, world, engine, session_clock):
    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id)
    keys = f"/portal/workspaces/{workspace_id}/keys"
    form_page = client.get(keys + "/new?mode=live")
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = submit(form_page, "new-key", mode="live", name="Billing sync", status=303)
    held = confirm_its_you(refused).follow()
    assert held.html.find("h1").get_text() == "Continue where you were"
    assert "Billing sync" in held.html.find(id="as-typed").get_text()
    assert held.forms["continue"]["name"].value == "Billing sync"
    assert held.html.find(id="back-to-form")["href"] == keys + "/new?mode=live"
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(ApiKey).where(
            ApiKey.workspace_id == uuid.UUID(workspace_id), ApiKey.mode == "live")) == 0
    created = submit(held, "continue", status=303).follow()
    assert secret_of(created).startswith("ehr_live_") and "Billing sync" in created.text
    again = client.get(held.request.path_qs)
    assert again.html.find(id="held-gone") is not None and "continue" not in again.forms  # read once


def test_confirm_it_s_you_comes_back_to_reveal_the_signing_secret(app, receiver, session_clock):
    client, _, _, page_url = with_endpoint(app, receiver.url)
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = submit(client.get(page_url), "reveal-secret", status=303)
    held = confirm_its_you(refused).follow()
    assert held.html.find(id="back-to-form")["href"] == page_url
    revealed = submit(held, "continue", status=303)
    assert revealed.location.startswith("http://localhost" + page_url)
    assert "whsec_" in revealed.follow().text


def test_a_password_typed_before_confirming_is_never_held(app, receiver, session_clock):
    client, _, _, page_url = with_endpoint(app, receiver.url)
    token = client.get(page_url).forms["reveal-secret"]["csrf_token"].value
    session_clock.move(minutes=PAST_THE_WINDOW)
    refused = client.post(page_url + "/secret", {"csrf_token": token, "new_password": "typed secret",
                                                 "note": "kept as typed"}, status=303)
    held = confirm_its_you(refused).follow()
    assert "typed secret" not in held.text
    fields = held.forms["continue"].submit_fields()
    assert ("note", "kept as typed") in fields and [name for name, _ in fields].count("csrf_token") == 1


def test_a_workspace_invitation_followed_as_clinic_staff_says_what_is_wrong_and_offers_to_switch(
        app, world, mail):
    owner, workspace_id = with_workspace(app)
    email = unique_email("dev")
    link = _invite_to_workspace(owner, workspace_id, email, mail)
    staff, _ = staff_browser(app, world.clinic(), "clinician")
    page = staff.get(link, status=403)
    message = page.html.find(id="error-message").get_text()
    assert "Only an owner" not in message
    assert "clinic staff account" in message and email in message
    token = page.forms["switch-account"]["csrf_token"].value
    joining = staff.post(link, {"csrf_token": token}, status=403)  # its join button, posted anyway
    assert "clinic staff account" in joining.html.find(id="error-message").get_text()
    assert "Only an owner" not in joining.text and "switch-account" in joining.forms
    answer = page.forms["switch-account"].submit(status=303)
    assert parse_qs(urlsplit(answer.location).query)["next"] == [link]
    assert staff.get("/portal/", status=302).location.endswith("/portal/login?next=%2Fportal%2F")  # signed out
    developer, _ = signed_up(app, email=email)
    assert developer.get(link).forms["join"]


def test_the_only_owner_s_leave_page_says_why_not_with_no_button(app, world):
    owner, workspace_id = with_workspace(app)
    page = owner.get(f"/portal/workspaces/{workspace_id}/members/leave")
    assert "leave-form" not in page.forms
    assert "You are the workspace's only owner: make another member owner first" in \
        page.html.find(id="leave-refusal").get_text()
    token = page.forms["logout"]["csrf_token"].value
    refused = owner.post(f"/portal/workspaces/{workspace_id}/members/leave", {"csrf_token": token}, status=400)
    assert error_summary(refused)[0].startswith("You are the workspace's only owner")
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    page = admin.get(f"/portal/clinics/{clinic_id}/staff/leave")
    assert "leave-form" not in page.forms and "only admin" in page.html.find(id="leave-refusal").get_text()
    clinician, _ = staff_browser(app, clinic_id, "clinician")
    assert "leave-form" in clinician.get(f"/portal/clinics/{clinic_id}/staff/leave").forms


def test_text_a_page_cannot_take_in_the_new_forms_is_refused_with_the_form_s_message(app, world, session_clock,
                                                                                      mail):
    # The generic walk (test_unusable_input.py) follows links; these forms are reached by redirects and a 403.
    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id)
    form_page = client.get(f"/portal/workspaces/{workspace_id}/keys/new?mode=live")
    session_clock.move(minutes=PAST_THE_WINDOW)
    held = confirm_its_you(submit(form_page, "new-key", mode="live", name="Billing sync", status=303)).follow()
    form = held.forms["continue"]
    form["name"].force_value("Billing\x00sync")
    refused = form.submit(status=400)
    assert error_summary(refused) and refused.forms["new-key"]
    owner, other_workspace = with_workspace(app)
    link = _invite_to_workspace(owner, other_workspace, unique_email("dev"), mail)
    staff, _ = staff_browser(app, world.clinic(), "clinician")
    switch = staff.get(link, status=403).forms["switch-account"]
    switch["next"].force_value(link + "\x00")
    answer = switch.submit(status=303)
    assert "next=" not in answer.location  # a next the log-in page cannot use is dropped
