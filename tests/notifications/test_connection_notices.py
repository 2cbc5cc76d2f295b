"""Decision 0095: a clinic's admins are mailed when a connection request waits; a workspace's owners when a
clinic approves, narrows or revokes its connection. Developers, clinicians, other workspaces' and clinics'
people, and whoever turned the notification off get nothing."""

from tests.common.cli import ok
from tests.notifications.helpers import joined, only_message, recipients, settings_link_in, turn_off
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import with_workspace

ASKED = ["allergies:read", "conditions:read", "patients:read"]


def _ask(developer, workspace_id, clinic_id, scopes=ASKED):
    form = developer.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    form["clinic_id"] = str(clinic_id)
    for box in form.fields["scopes"]:
        box.checked = box._value in scopes
    return form.submit(status=303)


def _tick(page, form_id, scopes, **fields):
    form = page.forms[form_id]
    for box in form.fields["scopes"]:
        box.checked = box._value in scopes
    for name, value in fields.items():
        form[name] = value
    return form.submit(status=303)


def test_the_clinic_s_admins_are_mailed_when_a_connection_request_waits(app, world, mail):
    clinic_id = world.clinic(name="Riverside Clinic")
    other_clinic = world.clinic(name="Hillside Clinic")
    _, admin = staff_browser(app, clinic_id, "admin")
    _, both = staff_browser(app, clinic_id, "admin,clinician")
    quiet_admin, quiet = staff_browser(app, clinic_id, "admin")
    _, clinician = staff_browser(app, clinic_id, "clinician")
    _, elsewhere = staff_browser(app, other_clinic, "admin")
    turn_off(quiet_admin, "connection_requested")
    developer, workspace_id = with_workspace(app, name="Acme Health")
    mail.clear()

    _ask(developer, workspace_id, clinic_id)

    mail.wait_for(2)
    asks = "Acme Health asks to connect to Riverside Clinic"
    assert recipients(mail, asks) == sorted([admin, both])
    assert not {quiet, clinician, elsewhere} & set(recipients(mail))
    message = only_message(mail, admin, asks)
    for words in ("- See patients' details", "- See the allergies on patients' charts",
                  "- See the conditions (diagnoses) on patients' charts"):
        assert words in message.text
    assert message.link(f"/clinics/{clinic_id}/connections").endswith(f"/portal/clinics/{clinic_id}/connections")
    assert "This message is about the clinic Riverside Clinic" in message.text
    assert "Riverside Clinic" in message.html and "Acme Health" in message.html
    settings_link_in(message)


def test_owners_are_mailed_when_a_clinic_approves_narrows_and_revokes(app, world, mail):
    clinic_id = world.clinic(name="Riverside Clinic")
    owner, workspace_id = with_workspace(app, name="Acme Health")
    owner_email = owner.get("/portal/account/email").html.find(id="email-status").strong.get_text()
    second_owner, second_email = joined(app, owner, workspace_id, "owner")
    quiet_owner, quiet_email = joined(app, owner, workspace_id, "owner")
    _, developer_email = joined(app, owner, workspace_id, "developer")
    stranger, _ = with_workspace(app, name="Other Org")
    stranger_email = stranger.get("/portal/account/email").html.find(id="email-status").strong.get_text()
    turn_off(quiet_owner, "connection_changed")
    _ask(owner, workspace_id, clinic_id)
    admin, _ = staff_browser(app, clinic_id, "admin")
    mail.clear()

    page = admin.get(f"/portal/clinics/{clinic_id}/connections").click("Review the request")
    _tick(page, "approve", {"patients:read", "allergies:read"}, expires_on="2099-12-31")
    mail.wait_for(2)
    approved = "Riverside Clinic approved a connection to Acme Health"
    assert recipients(mail, approved) == sorted([owner_email, second_email])
    assert not {quiet_email, developer_email, stranger_email} & set(recipients(mail))
    message = only_message(mail, owner_email, approved)
    assert "- See the allergies on patients' charts" in message.text and "- See patients' details" in message.text
    assert "conditions" not in message.text, "only what was granted"
    assert message.link(f"/workspaces/{workspace_id}/connections")
    assert "This message is about the workspace Acme Health" in message.text
    settings_link_in(message)

    mail.clear()
    page = admin.get(f"/portal/clinics/{clinic_id}/connections/{workspace_id}")
    _tick(page, "narrow", {"patients:read"})
    mail.wait_for(2)
    assert recipients(mail, "Riverside Clinic narrowed its connection to Acme Health") == sorted(
        [owner_email, second_email])

    mail.clear()
    admin.get(f"/portal/clinics/{clinic_id}/connections/{workspace_id}").forms["revoke"].submit(status=303)
    mail.wait_for(2)
    assert recipients(mail, "Riverside Clinic revoked its connection to Acme Health") == sorted(
        [owner_email, second_email])
    assert len(mail.messages()) == 2


def test_an_operator_s_grant_and_revoke_tell_the_owners_too(app, world, mail):
    clinic_id = world.clinic(name="Lakeside Clinic")
    owner, workspace_id = with_workspace(app, name="Scripted Org")
    owner_email = owner.get("/portal/account/email").html.find(id="email-status").strong.get_text()
    mail.clear()
    ok("connection", "grant", "--workspace", workspace_id, "--clinic", str(clinic_id), "--scopes", "patients:read")
    assert recipients(mail, "Lakeside Clinic approved a connection to Scripted Org") == [owner_email]
    ok("connection", "grant", "--workspace", workspace_id, "--clinic", str(clinic_id),
       "--scopes", "patients:read,allergies:read")
    assert recipients(mail, "Lakeside Clinic's connection to Scripted Org changed") == [owner_email]
    ok("connection", "revoke", "--workspace", workspace_id, "--clinic", str(clinic_id))
    ok("connection", "revoke", "--workspace", workspace_id, "--clinic", str(clinic_id))
    assert recipients(mail, "revoked") == [owner_email], "revoking again tells nothing"
