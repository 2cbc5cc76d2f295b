"""Workspaces: creation with a seeded sandbox, a member sees only their own, members and invitations."""

import re
import uuid

from sqlalchemy import func, select

from clinicrecords.access.models import Workspace
from clinicrecords.portal.web.models import PortalAuditEntry
from clinicrecords.identity.models import WorkspaceMember as Member
from tests.common.cli import admin
from tests.portal.helpers import (PASSWORD, browser, create_key, error_summary, secret_of, signed_up, submit,
                                  with_workspace)


def _count(engine, model, *where):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(model).where(*where))


def test_a_new_workspace_has_its_seeded_sandbox_and_a_test_key_works_at_once(app, testapp):
    client, workspace_id = with_workspace(app, "Acme Health")
    overview = client.get(f"/portal/workspaces/{workspace_id}?created=1")
    assert "Workspace created" in overview.text
    sandbox_id = overview.html.find("dt", string="Sandbox clinic id").find_next("dd").get_text().strip()
    key = secret_of(create_key(client, workspace_id))
    patients = testapp.get(f"/v1/clinics/{sandbox_id}/patients", headers={"Authorization": f"Bearer {key}"})
    assert patients.json["data"]  # the sandbox seed is there
    assert "Acme Health" in client.get("/portal/").text


def test_creating_a_workspace_without_a_name_creates_nothing(app, engine):
    client, _ = signed_up(app)
    before = _count(engine, Workspace)
    for name, message in (("   ", "Enter a name for the workspace"), ("x" * 201, "at most 200 characters")):
        answer = submit(client.get("/portal/workspaces/new"), "workspace", name=name, status=400)
        assert message in error_summary(answer)[0]
        assert answer.html.find(id="name")["value"] == name
    assert _count(engine, Workspace) == before


def test_another_members_workspace_answers_404_everywhere(app, engine):
    _, theirs = with_workspace(app, "Theirs Inc")
    client, mine = with_workspace(app, "Mine Ltd")
    assert "Theirs Inc" not in client.get("/portal/").text
    for path in ("", "/keys", "/keys/new", "/members", "/terms", "/plan", "/connections", "/activity"):
        answer = client.get(f"/portal/workspaces/{theirs}{path}", status=404)
        assert "Theirs Inc" not in answer.text
    for path, fields in (("/keys/new", {"mode": "test"}), ("/members/invite", {"email": "x@example.org"}),
                         ("/terms", {"agree": "yes"}), ("/plan", {"plan": "paid"})):
        token = client.get(f"/portal/workspaces/{mine}/keys").html.find("input", attrs={"name": "csrf_token"})["value"]
        client.post(f"/portal/workspaces/{theirs}{path}", {"csrf_token": token, **fields}, status=404)
    client.get(f"/portal/workspaces/{uuid.uuid4()}", status=404)
    client.get("/portal/workspaces/not-a-uuid", status=404)
    with engine.connect() as connection:
        assert connection.scalar(select(Workspace.plan).where(Workspace.id == uuid.UUID(theirs))) == "sandbox"


def test_an_owner_invites_by_link_and_the_invited_email_joins_as_developer(app, engine):
    owner, workspace_id = with_workspace(app)
    invitee, email = signed_up(app)
    page = owner.get(f"/portal/workspaces/{workspace_id}/members")
    answer = submit(page, "invite", email=email, role="developer", status=303).follow()
    link = answer.html.find(id="invitation-link").get_text().strip()
    assert link.startswith("http://localhost/portal/invitations?token=")
    assert link not in owner.get(f"/portal/workspaces/{workspace_id}/members").text  # shown once
    joined = submit(invitee.get(link), "join", status=303)
    assert joined.location.endswith(f"/portal/workspaces/{workspace_id}?joined=1")
    members = invitee.get(f"/portal/workspaces/{workspace_id}/members")
    assert email in members.text and "invite" not in members.forms  # developers do not invite
    assert "already used" in invitee.get(link, status=410).text  # used: the page says so
    assert _count(engine, PortalAuditEntry, PortalAuditEntry.workspace_id == uuid.UUID(workspace_id),
                  PortalAuditEntry.action.in_(["member.invited", "member.added"])) == 2


def test_an_invitation_is_for_its_email_only(app, engine):
    owner, workspace_id = with_workspace(app)
    submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email="someone@example.org",
           role="developer", status=303)
    link = owner.get(f"/portal/workspaces/{workspace_id}/members").html  # the link is not shown again
    assert link.find(id="invitation-link") is None
    answer = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email="other@example.org",
                    role="owner", status=303).follow()
    url = answer.html.find(id="invitation-link").get_text().strip()
    stranger, _ = signed_up(app)
    refused = submit(stranger.get(url), "join", status=400)
    assert "This invitation is for other@example.org" in refused.text
    assert _count(engine, Member, Member.workspace_id == uuid.UUID(workspace_id)) == 1
    anonymous = browser(app).get(url)
    assert "Create an account" in anonymous.text and "join" not in anonymous.forms


def test_invitation_form_errors_and_role_boundary(app):
    owner, workspace_id = with_workspace(app)
    page = owner.get(f"/portal/workspaces/{workspace_id}/members")
    answer = submit(page, "invite", email="nope", role="developer", status=400)
    assert error_summary(answer) == ["Enter an email address in the right format, like name@example.com"]
    assert answer.html.find(id="email")["value"] == "nope"
    own_email = re.search(r'class="who">([^<]+)<', page.text).group(1)
    answer = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=own_email,
                    role="developer", status=400)
    assert error_summary(answer) == ["This person is already a member of the workspace"]
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    owner.post(f"/portal/workspaces/{workspace_id}/members/invite",
               {"csrf_token": token, "email": "a@example.org", "role": "admin"}, status=400)


def test_a_developer_cannot_do_owner_things(app, engine):
    owner, workspace_id = with_workspace(app)
    developer, email = signed_up(app)
    url = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email,
                 role="developer", status=303).follow().html.find(id="invitation-link").get_text().strip()
    submit(developer.get(url), "join", status=303)
    token = developer.get("/portal/").html.find("input", attrs={"name": "csrf_token"})["value"]
    for path, fields in (("/members/invite", {"email": "x@example.org", "role": "owner"}),
                         ("/terms", {"agree": "yes", "version": "2026-01"}), ("/plan", {"plan": "paid"})):
        answer = developer.post(f"/portal/workspaces/{workspace_id}{path}", {"csrf_token": token, **fields},
                                status=403)
        assert "Only an owner" in answer.text
    # ... and works with keys like anyone in the workspace.
    assert secret_of(create_key(developer, workspace_id)).startswith("ehr_test_")


def test_the_operator_prints_an_invitation_link_that_works(app, world):
    owner, workspace_id = with_workspace(app)
    invitee, email = signed_up(app)
    status, result, _ = admin("portal", "invite-link", "--workspace", workspace_id, "--email", email.upper(),
                              "--role", "developer")
    assert status == 0 and result["email"] == email and result["role"] == "developer"
    path = result["invitation_url"].replace("http://localhost:6543", "")
    submit(invitee.get(path), "join", status=303)
    assert email in owner.get(f"/portal/workspaces/{workspace_id}/activity").text


def test_the_operator_invite_link_refuses_bad_input(world, engine):
    workspace_id, _ = world.workspace()
    before = _count(engine, PortalAuditEntry)
    for argv in (("--workspace", str(uuid.uuid4()), "--email", "a@example.org"),
                 ("--workspace", str(workspace_id), "--email", "not-an-email")):
        status, _, err = admin("portal", "invite-link", *argv)
        assert status == 2 and err
    assert _count(engine, PortalAuditEntry) == before


def test_log_in_after_sign_up_lists_only_my_workspaces(app):
    client, workspace_id = with_workspace(app, "Only Mine")
    email = re.search(r'class="who">([^<]+)<', client.get("/portal/").text).group(1)
    again = browser(app)
    form = again.get("/portal/login").forms["login"]
    form["email"], form["password"] = email, PASSWORD
    form.submit(status=303)
    page = again.get("/portal/")
    assert "Only Mine" in page.text and f"/portal/workspaces/{workspace_id}" in page.text


def test_an_invitation_token_never_reaches_the_request_log(app, caplog):
    owner, workspace_id = with_workspace(app)
    answer = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email="log@example.org",
                    role="developer", status=303).follow()
    url = answer.html.find(id="invitation-link").get_text().strip()
    token = url.split("token=")[1]
    with caplog.at_level("INFO", logger="clinicrecords.request"):
        browser(app).get(url)
    lines = [record.getMessage() for record in caplog.records if record.name == "clinicrecords.request"]
    assert any('"/portal/invitations"' in line for line in lines)
    assert not any(token in line for line in lines)
