"""Decision 0094: the workspace side: an owner invites by email, changes a member's role (making another
owner is how ownership passes on), removes a member and cancels an invitation; a member leaves; a workspace
always keeps an owner. Each change is audited and the person affected is emailed (a real SMTP server on
loopback)."""

import uuid

from sqlalchemy import select

from clinicrecords.identity.models import Account, Invitation, WorkspaceMember
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.portal.helpers import (PASSWORD, browser, error_summary, mailed_to, portal_path, signed_up, submit,
                                  with_workspace)

NAME = "Acme Health"


def _invite(owner, workspace_id, email, role="developer"):
    return submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email, role=role,
                  status=303).follow()


def _joined(app, mail, owner, workspace_id, role="developer"):
    """A new account invited by email, joined through the emailed link: (browser, email, account id)."""
    person, email = signed_up(app)
    _invite(owner, workspace_id, email, role)
    link = mailed_to(mail, email, f"You are invited to join the workspace {NAME} on Clinic Records").link(
        "/invitations")
    submit(person.get(portal_path(link)), "join", status=303)
    return person, email, _account_id(app, email)


def _account_id(app, email):
    with app.registry["db.engine"].connect() as connection:
        return connection.scalar(select(Account.id).where(Account.email == email))


def _role(engine, workspace_id, account_id):
    with engine.connect() as connection:
        return connection.scalar(select(WorkspaceMember.role).where(
            WorkspaceMember.workspace_id == uuid.UUID(workspace_id), WorkspaceMember.account_id == account_id))


def _actions(engine, workspace_id):
    with engine.connect() as connection:
        return connection.scalars(select(PortalAuditEntry.action).where(
            PortalAuditEntry.workspace_id == uuid.UUID(workspace_id)).order_by(PortalAuditEntry.at)).all()


def test_an_invitation_arrives_by_email_naming_the_workspace_and_signing_up_from_it_prefills_the_address(
        app, engine, mail):
    owner, workspace_id = with_workspace(app, NAME)
    owner_email = owner.get("/portal/").html.find(class_="who").get_text().strip()
    email = "newcomer-" + uuid.uuid4().hex[:8] + "@example.org"
    page = _invite(owner, workspace_id, email)
    shown = page.html.find(id="invitation-link").get_text().strip()  # still shown once, for copying
    assert "Invitation sent" in page.text
    message = mailed_to(mail, email, f"You are invited to join the workspace {NAME} on Clinic Records")
    assert f"{owner_email} invited you" in message.text and "as developer" in message.text
    assert f"the workspace {NAME}" in message.text and PASSWORD not in message.text
    link = message.link("/invitations")
    assert portal_path(link) == portal_path(shown)
    invitation = browser(app).get(portal_path(link))
    signup = browser(app).get(invitation.html.find(id="signup-link")["href"])
    assert signup.forms["signup"]["email"].value == email
    with engine.connect() as connection:
        assert connection.scalar(select(Invitation.emailed_at).where(Invitation.email == email)) is not None


def test_an_owner_makes_a_member_owner_who_is_emailed_and_the_first_owner_then_leaves(app, engine, mail):
    owner, workspace_id = with_workspace(app, NAME)
    owner_id = _account_id(app, owner.get("/portal/").html.find(class_="who").get_text().strip())
    person, email, account_id = _joined(app, mail, owner, workspace_id)
    members = owner.get(f"/portal/workspaces/{workspace_id}/members")
    page = owner.get(members.html.find("td", string=email).find_parent("tr").find("a")["href"])
    done = submit(page, "roles", role="owner", status=303).follow()
    assert f"{email} is now owner" in done.html.find(id="notice").text
    message = mailed_to(mail, email, f"You are now an owner of the workspace {NAME}")
    assert "changed your role in the workspace" in message.text and "from developer to owner" in message.text
    assert _role(engine, workspace_id, account_id) == "owner"
    left = submit(owner.get(f"/portal/workspaces/{workspace_id}/members/leave"), "leave-form", status=303)
    assert f"You left the workspace {NAME}" in left.follow().text
    owner.get(f"/portal/workspaces/{workspace_id}", status=404)
    assert _role(engine, workspace_id, owner_id) is None
    assert person.get(f"/portal/workspaces/{workspace_id}/members").status_int == 200
    assert {"member.role_changed", "member.left"} <= set(_actions(engine, workspace_id))


def test_a_workspace_keeps_an_owner(app, engine, mail):
    owner, workspace_id = with_workspace(app, NAME)
    owner_id = _account_id(app, owner.get("/portal/").html.find(class_="who").get_text().strip())
    leave_page = owner.get(f"/portal/workspaces/{workspace_id}/members/leave")
    assert "leave-form" not in leave_page.forms  # the page says why instead (tests/portal/test_people_pages.py)
    refused = owner.post(f"/portal/workspaces/{workspace_id}/members/leave",
                         {"csrf_token": leave_page.forms["logout"]["csrf_token"].value}, status=400)
    assert error_summary(refused) == ["You are the workspace's only owner: make another member owner first, or "
                                      "close the workspace"]
    own_page = owner.get(f"/portal/workspaces/{workspace_id}/members/{owner_id}")
    assert "remove" not in own_page.forms  # oneself: "Leave"
    demoted = submit(own_page, "roles", role="developer", status=400)
    assert error_summary(demoted) == ["A workspace keeps at least one owner: make another member owner first"]
    assert demoted.html.find(id="role-1").has_attr("checked")  # what was chosen is kept
    token = own_page.forms["roles"]["csrf_token"].value
    removed = owner.post(f"/portal/workspaces/{workspace_id}/members/{owner_id}/remove", {"csrf_token": token},
                         status=400)
    assert error_summary(removed) == ["To take yourself off, use “Leave”"]
    bad = owner.post(f"/portal/workspaces/{workspace_id}/members/{owner_id}/roles",
                     {"csrf_token": token, "role": "admin"}, status=400)
    assert error_summary(bad) == ["Choose owner or developer"]
    assert _role(engine, workspace_id, owner_id) == "owner"


def test_an_owner_removes_a_member_who_is_emailed_and_can_no_longer_open_the_workspace(app, engine, mail):
    owner, workspace_id = with_workspace(app, NAME)
    person, email, account_id = _joined(app, mail, owner, workspace_id)
    page = owner.get(f"/portal/workspaces/{workspace_id}/members/{account_id}")
    done = submit(page, "remove", status=303).follow()
    assert f"{email} removed from the workspace" in done.html.find(id="notice").text
    assert email not in done.html.find(id="team").text
    message = mailed_to(mail, email, f"You were removed from the workspace {NAME}")
    assert "no longer open" in message.text
    person.get(f"/portal/workspaces/{workspace_id}", status=404)
    owner.get(f"/portal/workspaces/{workspace_id}/members/{account_id}", status=404)  # no longer there
    assert "member.removed" in _actions(engine, workspace_id)


def test_a_developer_manages_no_one(app, mail):
    owner, workspace_id = with_workspace(app, NAME)
    owner_id = _account_id(app, owner.get("/portal/").html.find(class_="who").get_text().strip())
    developer, _, _ = _joined(app, mail, owner, workspace_id)
    members = developer.get(f"/portal/workspaces/{workspace_id}/members")
    assert "invite" not in members.forms and "Change role" not in members.text
    token = members.forms["logout"]["csrf_token"].value
    w = f"/portal/workspaces/{workspace_id}"
    developer.get(f"{w}/members/{owner_id}", status=403)
    developer.get(f"{w}/close", status=403)
    for path, fields in ((f"/members/{owner_id}/roles", {"role": "developer"}), (f"/members/{owner_id}/remove", {}),
                         ("/members/cancel-invitation", {"invitation": str(uuid.uuid4())}),
                         ("/close", {"name": NAME})):
        developer.post(w + path, {"csrf_token": token, **fields}, status=403)
    assert owner.get(w).status_int == 200


def test_an_owner_cancels_an_invitation_whose_link_stops_working_and_its_email_is_told(app, engine, mail):
    owner, workspace_id = with_workspace(app, NAME)
    invitee, email = signed_up(app)
    _invite(owner, workspace_id, email)
    link = portal_path(mailed_to(mail, email, f"You are invited to join the workspace {NAME} on Clinic Records")
                       .link("/invitations"))
    page = owner.get(f"/portal/workspaces/{workspace_id}/members")
    form = page.forms[next(name for name in page.forms if str(name).startswith("cancel-"))]
    done = form.submit(status=303).follow()
    assert f"Invitation to {email} cancelled" in done.html.find(id="notice").text
    assert "Open invitations" not in done.text
    told = mailed_to(mail, email, f"Your invitation to join the workspace {NAME} was cancelled")
    assert "no longer works" in told.text
    assert "was cancelled" in invitee.get(link, status=410).html.find("h1").get_text()
    again = form.submit(status=400)  # the same (stale) button again
    assert error_summary(again) == ["This invitation was already used, cancelled or has expired"]
    nonsense = owner.post(f"/portal/workspaces/{workspace_id}/members/cancel-invitation",
                          {"csrf_token": form["csrf_token"].value, "invitation": "not-an-id"}, status=400)
    assert error_summary(nonsense) == ["This invitation was already used, cancelled or has expired"]
    assert "member.invitation_cancelled" in _actions(engine, workspace_id)


def test_another_workspaces_invitation_is_not_cancelled_here(app, engine, mail):
    owner, workspace_id = with_workspace(app, NAME)
    other, other_id = with_workspace(app, "Other Ltd")
    _invite(other, other_id, "theirs-" + uuid.uuid4().hex[:6] + "@example.org")
    with engine.connect() as connection:
        theirs = connection.scalar(select(Invitation.id).where(Invitation.workspace_id == uuid.UUID(other_id)))
    token = owner.get(f"/portal/workspaces/{workspace_id}/members").forms["invite"]["csrf_token"].value
    owner.post(f"/portal/workspaces/{workspace_id}/members/cancel-invitation",
               {"csrf_token": token, "invitation": str(theirs)}, status=400)
    with engine.connect() as connection:
        assert connection.scalar(select(Invitation.cancelled_at).where(Invitation.id == theirs)) is None


def test_team_forms_without_their_csrf_token_change_nothing(app, engine, mail):
    owner, workspace_id = with_workspace(app, NAME)
    person, email, account_id = _joined(app, mail, owner, workspace_id)
    _invite(owner, workspace_id, "pending-" + uuid.uuid4().hex[:6] + "@example.org")
    w = f"/portal/workspaces/{workspace_id}"
    page = owner.get(f"{w}/members/{account_id}")
    members = owner.get(f"{w}/members")
    cancel = members.forms[next(name for name in members.forms if str(name).startswith("cancel-"))]
    for form, fields in ((page.forms["roles"], {"role": "owner"}), (page.forms["remove"], {}), (cancel, {}),
                         (person.get(f"{w}/members/leave").forms["leave-form"], {}),  # the only owner has none
                         (owner.get(f"{w}/close").forms["close"], {"name": NAME})):
        for name, value in fields.items():
            form[name] = value
        posted = dict(form.submit_fields())
        posted.pop("csrf_token")
        owner.post(form.action, posted, status=403)
    assert _role(engine, workspace_id, account_id) == "developer"
    assert owner.get(w).status_int == 200
    assert len(owner.get(f"{w}/members").html.find(id="invitations").find_all("tr")) == 2
