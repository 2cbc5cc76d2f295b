"""Decision 0094: an owner closes a workspace with a typed confirmation. Its keys answer as revoked, its
webhook endpoints are deleted, its connections ended, its members removed (each emailed), its sandbox's schema
dropped; what it sent stays in the clinic's queue; the row stays, closed, so the audit trail and this month's
usage export still name it. A person whose only workspace closed signs in to a clear page."""

import datetime
import uuid

import webtest
from sqlalchemy import func, select, text

from clinicrecords.access.models import ApiKey, Connection, Workspace
from clinicrecords.clinics.models import Clinic as ClinicRow
from clinicrecords.db.tenancy import schema_name
from clinicrecords.events.models import WebhookEndpoint
from clinicrecords.identity.models import Account, WorkspaceMember
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import ok, refused
from tests.portal.helpers import (PASSWORD, browser, error_summary, mailed_to, portal_path, signed_up, submit)
from tests.review.conftest import Clinic

NAME = "Test Workspace"  # tests.common.world's


def _member(app, mail, workspace_id, role):
    """A new account invited by the operator (the link emailed too) and joined: (browser, email)."""
    person, email = signed_up(app)
    printed = ok("portal", "invite-link", "--workspace", workspace_id, "--email", email, "--role", role)
    emailed = mailed_to(mail, email, f"You are invited to join the workspace {NAME} on Clinic Records")
    assert portal_path(emailed.link("/invitations")) == portal_path(printed["invitation_url"])
    submit(person.get(portal_path(printed["invitation_url"])), "join", status=303)
    return person, email


def _one(engine, statement):
    with engine.connect() as connection:
        return connection.execute(statement).scalar()


def test_closing_a_workspace_ends_its_reach_and_keeps_its_row_and_what_it_sent(app, engine, world, mail):
    testapp = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    connected = world.connected()
    clinic = Clinic(testapp, world, connected)
    submission_id = clinic.allergy("Peanut").json["data"]["submission_id"]
    world.webhook(workspace_id=connected.workspace_id, mode="live")
    workspace_id = str(connected.workspace_id)
    owner, owner_email = _member(app, mail, workspace_id, "owner")
    _, developer_email = _member(app, mail, workspace_id, "developer")
    testapp.get("/v1/me", headers=connected.headers, status=200)
    close = owner.get(f"/portal/workspaces/{workspace_id}/close")
    assert "This cannot be undone" in close.text

    wrong = submit(close, "close", name="test workspace", status=400)
    assert error_summary(wrong) == [f"Type the workspace's name, {NAME}, exactly as it is shown"]
    assert wrong.forms["close"]["name"].value == "test workspace"
    assert _one(engine, select(Workspace.closed_at).where(Workspace.id == connected.workspace_id)) is None

    done = submit(wrong, "close", name=NAME, status=303).follow()
    assert f"Workspace {NAME} closed" in done.html.find(id="notice").text

    revoked_key = world.key(workspace_id=world.workspace()[0], mode="test")
    world.revoke_key(revoked_key.split("_")[2])
    as_revoked = testapp.get("/v1/me", headers={"Authorization": f"Bearer {revoked_key}"}, status=401).json
    answer = testapp.get("/v1/me", headers=connected.headers, status=401).json
    assert answer["code"] == as_revoked["code"]
    assert _one(engine, select(func.count()).select_from(ApiKey).where(
        ApiKey.workspace_id == connected.workspace_id, ApiKey.revoked_at.is_(None))) == 0
    assert _one(engine, select(func.count()).select_from(WebhookEndpoint).where(
        WebhookEndpoint.workspace_id == connected.workspace_id)) == 0
    assert _one(engine, select(Connection.revoked_at).where(
        Connection.workspace_id == connected.workspace_id)) is not None
    assert _one(engine, select(func.count()).select_from(WorkspaceMember).where(
        WorkspaceMember.workspace_id == connected.workspace_id)) == 0
    assert _one(engine, text("SELECT count(*) FROM information_schema.schemata WHERE schema_name = :s")
                .bindparams(s=schema_name(connected.sandbox_clinic_id))) == 0
    assert _one(engine, select(ClinicRow.schema_dropped_at).where(
        ClinicRow.id == connected.sandbox_clinic_id)) is not None
    owner_id = _one(engine, select(Account.id).where(Account.email == owner_email))
    assert _one(engine, select(Workspace.closed_by).where(Workspace.id == connected.workspace_id)) == owner_id
    closed = _one(engine, select(PortalAuditEntry.details).where(
        PortalAuditEntry.action == "workspace.closed", PortalAuditEntry.workspace_id == connected.workspace_id))
    assert closed["members"] == sorted([owner_email, developer_email])

    for email in (owner_email, developer_email):
        message = mailed_to(mail, email, f"The workspace {NAME} was closed")
        assert f"closed by {owner_email}" in message.text and "What it sent to clinics stays" in message.text

    # What it sent is the clinic's: still in its queue, and decided there.
    assert clinic.accept(submission_id)["decided_at"]
    month = datetime.date.today().strftime("%Y-%m")
    exported = {entry["workspace_id"]: entry for entry in ok("usage", "export", "--month", month)["workspaces"]}
    assert workspace_id in exported
    assert ok("usage", "show", "--workspace", workspace_id)["workspace_id"] == workspace_id
    assert "closed" in refused("portal", "invite-link", "--workspace", workspace_id, "--email", "x@example.org")
    assert "closed" in refused("key", "create", "--workspace", workspace_id, "--mode", "test")

    # The owner signs in again: no workspace opens, the list says what happened.
    again = browser(app)
    submit(again.get("/portal/login"), "login", email=owner_email, password=PASSWORD, status=303)
    home = again.get("/portal/")
    assert NAME in home.html.find(id="closed-workspaces").text
    again.get(f"/portal/workspaces/{workspace_id}", status=404)
    again.get(f"/portal/workspaces/{workspace_id}/members", status=404)


def test_a_closed_workspace_s_pending_connection_request_cannot_be_approved(app, world, mail):
    from tests.portal.console_helpers import staff_browser

    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    owner, _ = signed_up(app)
    workspace_id = _new_workspace(owner)
    form = owner.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    form["clinic_id"] = str(clinic_id)
    form.fields["scopes"][0].checked = True
    form.submit(status=303)
    submit(owner.get(f"/portal/workspaces/{workspace_id}/close"), "close", name="Soon Closed", status=303)
    requests = admin.get(f"/portal/clinics/{clinic_id}/connections")
    href = requests.html.find("a", string="Review the request")["href"]
    refused_page = admin.get(href).forms["approve"].submit(status=400)
    assert error_summary(refused_page) == ["This organization closed its workspace: decline the request"]


def _new_workspace(client, name="Soon Closed"):
    answer = submit(client.get("/portal/workspaces/new"), "workspace", name=name, status=303)
    return uuid.UUID(answer.location.split("/workspaces/")[1].split("?")[0])
