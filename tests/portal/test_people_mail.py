"""What the people layer's mail says, as the real SMTP server receives it: a clinic's admin who invites a
developer portal account's email is answered as for any other address and the person is told what to do; the
address change's message says it is a change; a subject is never folded before its first word; role changes
and removals name who made them; notifications carry `List-Unsubscribe` to the settings page, security notices
none."""

from sqlalchemy import select

from clinicrecords.identity.models import Invitation
from tests.portal.console_helpers import path_of, staff_browser
from tests.portal.helpers import PASSWORD, browser, mailed_to, signed_up, submit, unique_email, with_workspace
from tests.notifications.helpers import joined


def _invite(admin, clinic_id, email):
    page = admin.get(f"/portal/clinics/{clinic_id}/staff")
    return submit(page, "invite", email=email, role="clinician", status=None)


def test_inviting_a_developer_s_email_to_a_clinic_s_staff_is_answered_as_any_other(app, world, mail, engine):
    clinic_id = world.clinic(name="Harbour View Clinic")
    developer, _ = with_workspace(app)
    developer_email = developer.get("/portal/").html.find(class_="who").get_text().strip()
    admin, admin_email = staff_browser(app, clinic_id, "admin")
    stranger_email = unique_email("nobody")
    mail.clear()

    answers = [_invite(admin, clinic_id, email) for email in (developer_email, stranger_email)]

    assert [answer.status_int for answer in answers] == [303, 303]
    pages = [answer.follow() for answer in answers]
    for page, email in zip(pages, (developer_email, stranger_email)):
        assert "developer portal account" not in page.text
        assert page.html.find(id="invitation-link") is not None and email in page.text
    with engine.connect() as connection:
        invited = connection.scalars(select(Invitation.email).where(Invitation.clinic_id == clinic_id,
                                                                    Invitation.cancelled_at.is_(None))).all()
    assert {developer_email, stranger_email} <= set(invited)
    told = mailed_to(mail, developer_email, "About your invitation to join the staff of Harbour View Clinic")
    assert admin_email in told.text and "as clinician" in told.text
    assert "developer portal account" in told.text and "another address" in told.text
    assert "/staff-invitations" not in told.text and "/staff-invitations" not in told.html, "no link to join"
    assert admin_email in told.html
    mailed_to(mail, stranger_email, "You are invited to join the staff of Harbour View Clinic on Clinic Records")
    # Following the link as the developer still refuses to join, saying why.
    link = pages[0].html.find(id="invitation-link").get_text().strip()
    refused = submit(developer.get(path_of(link)), "join", status=400)
    assert "developer portal account" in refused.text


def test_a_staff_invitation_s_subject_starts_with_its_first_word(app, world, mail):
    # "You are invited to join the staff of Harbour View Clinic on Clinic Records" is 75 characters: the
    # library's folding put it whole on the line after "Subject:", and it read " You are invited...".
    clinic_id = world.clinic(name="Harbour View Clinic")
    admin, _ = staff_browser(app, clinic_id, "admin")
    email = unique_email("nurse")
    mail.clear()
    _invite(admin, clinic_id, email)
    [message] = mail.wait_for(1)
    assert message.subject == "You are invited to join the staff of Harbour View Clinic on Clinic Records"
    raw = message.message.as_string()
    assert "Subject: You are invited" in raw


def test_the_new_address_s_message_says_it_is_a_change_not_a_sign_up(app, mail):
    client, _ = signed_up(app)
    new_email = unique_email("moved")
    mail.clear()
    submit(client.get("/portal/account/email"), "email-change", email=new_email, password=PASSWORD, status=303)
    message = mailed_to(mail, new_email, "Verify your new email address for Clinic Records")
    for part in (message.text, message.html):
        assert "signed up" not in part
        assert f"asked to change the email address of a Clinic Records account to {new_email}" in part
        assert "keeps its current address" in part


def test_a_sign_up_s_message_still_says_sign_up(app, mail):
    email = unique_email("new")
    mail.clear()
    submit(browser(app, "198.51.100.250").get("/portal/signup"), "signup", email=email, password=PASSWORD,
           status=303)
    message = mailed_to(mail, email, "Verify your email address for Clinic Records")
    assert f"signed up to Clinic Records with {email}" in message.text


def test_role_changes_and_removals_say_who_made_them(app, mail):
    owner, workspace_id = with_workspace(app, name="Acme Health")
    owner_email = owner.get("/portal/").html.find(class_="who").get_text().strip()
    _, member_email = joined(app, owner, workspace_id, "developer")
    members = f"/portal/workspaces/{workspace_id}/members"
    member_path = owner.get(members).html.find("td", string=member_email).find_parent("tr").find("a")["href"]
    mail.clear()
    submit(owner.get(member_path), "roles", role="owner", status=303)
    made_owner = mailed_to(mail, member_email, "You are now an owner of the workspace Acme Health")
    assert f"{owner_email} changed your role in the workspace Acme Health" in made_owner.text
    assert owner_email in made_owner.html
    submit(owner.get(member_path), "remove", status=303)
    removed = mailed_to(mail, member_email, "You were removed from the workspace Acme Health")
    assert f"{owner_email} removed your account, {member_email}, from the workspace Acme Health" in removed.text
    assert owner_email in removed.html


def test_security_notices_carry_no_list_unsubscribe(app, mail):
    client, email = signed_up(app)
    mail.clear()
    form = client.get("/portal/account/password").forms["password-change"]
    form["current_password"] = PASSWORD
    form["new_password"] = PASSWORD + " and more"
    form.submit(status=303)
    notice = mailed_to(mail, email, "Your Clinic Records password was changed")
    assert notice.message["List-Unsubscribe"] is None
