"""The invitation forms (a workspace's members, a clinic's staff) count in the mail throttle as a stranger's
request for the invited email: 3 an hour per email and client address, 10 an hour per email from all addresses
together, refused on the form's email field with nothing stored and no mail sent. They have no per-address limit:
an admin may invite a whole team from one office. The operator's invitations (`clinic staff add`) are not
counted (decision 0111)."""

import uuid

from sqlalchemy import func, select

from clinicrecords.identity.models import Invitation, MailRequest
from tests.common.cli import ok
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import PASSWORD, browser, error_summary, submit, unique_email, with_workspace

TOO_MANY_MAILS = "Too many requests for email. Try again in "
INVITED = "You are invited to join the workspace Acme Health on Clinic Records"


def _invite(client, team, email, role, status=303):
    return submit(client.get(team), "invite", email=email, role=role, status=status)


def _cancel_open(client, team):
    """Cancels every open invitation on the team page, so "already invited" is never what refuses the next."""
    page = client.get(team)
    for name in [name for name in page.forms if str(name).startswith("cancel-")]:
        page.forms[name].submit(status=303)
        page = client.get(team)


def _invited_again(client, team, email, role, times):
    for _ in range(times):
        _invite(client, team, email, role)
        _cancel_open(client, team)


def _members(workspace_id):
    return f"/portal/workspaces/{workspace_id}/members"


def _invitations(engine, email):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(Invitation).where(Invitation.email == email))


def _requests(engine, email):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(MailRequest).where(MailRequest.email == email))


def _invitations_mailed(mail, email, subject=INVITED):
    return [message for message in mail.messages() if message.to == [email] and message.subject == subject]


def _refused(answer, email):
    assert error_summary(answer)[0].startswith(TOO_MANY_MAILS + "60 minutes")
    assert answer.html.find(id="email-error") is not None
    assert answer.forms["invite"]["email"].value == email  # the form shown again with what was typed


def test_the_fourth_invitation_of_one_email_from_one_address_in_an_hour_is_refused(app, engine, mail):
    owner, workspace_id = with_workspace(app)
    email = unique_email("invitee")
    _invited_again(owner, _members(workspace_id), email, "developer", 3)
    refused = _invite(owner, _members(workspace_id), email, "developer", status=400)
    _refused(refused, email)
    assert _invitations(engine, email) == 3 and _requests(engine, email) == 3  # nothing stored
    mail.wait_for(1 + 3 + 3)  # the owner's sign-up; three invitations, each cancelled
    assert len(_invitations_mailed(mail, email)) == 3


def test_the_eleventh_invitation_of_one_email_from_several_addresses_is_refused(app, engine, mail):
    email = unique_email("popular")
    owners = [with_workspace(app) for _ in range(4)]  # each signed up from an address of its own
    for owner, workspace_id in owners[:3]:
        _invited_again(owner, _members(workspace_id), email, "developer", 3)
    last, workspace_id = owners[3]
    _invited_again(last, _members(workspace_id), email, "developer", 1)  # the tenth
    refused = _invite(last, _members(workspace_id), email, "developer", status=400)  # this address's second
    _refused(refused, email)
    assert _invitations(engine, email) == 10
    mail.wait_for(4 + 10 + 10)
    assert len(_invitations_mailed(mail, email)) == 10


def test_an_owner_invites_twenty_five_people_from_one_address(app, engine, mail):
    owner, workspace_id = with_workspace(app)
    emails = [unique_email(f"team{n}") for n in range(25)]
    for email in emails:
        _invite(owner, _members(workspace_id), email, "developer")
    mail.wait_for(1 + 25)
    assert all(len(_invitations_mailed(mail, email)) == 1 for email in emails)
    # Nor do they count against the office's address for the forms anyone may fill in.
    office = browser(app, owner.extra_environ["REMOTE_ADDR"])
    submit(office.get("/portal/signup"), "signup", email=unique_email("colleague"), password=PASSWORD, status=303)
    submit(office.get("/portal/forgot-password"), "forgot-password", email=unique_email("colleague"), status=303)


def test_the_clinic_staff_form_counts_and_the_operators_invitations_do_not(app, world, engine, mail):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    staff = f"/portal/clinics/{clinic_id}/staff"
    email = f"nurse-{uuid.uuid4().hex[:8]}@example.org"
    _invited_again(admin, staff, email, "clinician", 3)
    _refused(_invite(admin, staff, email, "clinician", status=400), email)
    assert _invitations(engine, email) == 3 and _requests(engine, email) == 3
    # The operator's own command is not counted, nor refused by what the clinic's admin sent.
    ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", email, "--role", "clinician")
    assert _invitations(engine, email) == 4 and _requests(engine, email) == 3
