"""Decision 0094: the clinic side: an admin changes a staff member's roles (admin and/or clinician,
combined), removes them and cancels an invitation; a person leaves; a clinic always keeps an admin. Audited and
emailed. And the operator's commands that invite staff email the link besides printing it: `clinic staff add`
and `clinic create --admin-email`."""

import uuid

from sqlalchemy import select

from clinicrecords.identity.models import Account, ClinicStaff
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import ok, refused
from tests.portal.console_helpers import path_of, staff_browser
from tests.portal.helpers import PASSWORD, browser, error_summary, mailed_to, portal_path, submit, unique_email


def _account_id(engine, email):
    with engine.connect() as connection:
        return connection.scalar(select(Account.id).where(Account.email == email))


def _roles(engine, clinic_id, account_id):
    with engine.connect() as connection:
        return connection.scalar(select(ClinicStaff.roles).where(ClinicStaff.clinic_id == clinic_id,
                                                                 ClinicStaff.account_id == account_id))


def _actions(engine, clinic_id):
    with engine.connect() as connection:
        return set(connection.scalars(select(PortalAuditEntry.action).where(PortalAuditEntry.clinic_id == clinic_id)))


def test_an_admin_combines_roles_removes_staff_and_cancels_an_invitation_each_emailed(app, world, engine, mail):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    nurse, nurse_email = staff_browser(app, clinic_id, "clinician")
    nurse_id = _account_id(engine, nurse_email)
    page = admin.get(f"/portal/clinics/{clinic_id}/staff/{nurse_id}")
    bad = admin.post(f"/portal/clinics/{clinic_id}/staff/{nurse_id}/roles",
                     {"csrf_token": page.forms["roles"]["csrf_token"].value, "role": "owner"}, status=400)
    assert error_summary(bad) == ["Choose admin, clinician or both"]
    done = submit(page, "roles", role="admin,clinician", status=303).follow()
    assert f"{nurse_email} is now admin and clinician" in done.html.find(id="notice").text
    assert _roles(engine, clinic_id, nurse_id) == ["admin", "clinician"]
    told = mailed_to(mail, nurse_email, "Your role in the staff of Test Clinic changed")
    assert "from clinician to admin and clinician" in told.text and "the clinic Test Clinic" in told.text
    assert nurse.get(f"/portal/clinics/{clinic_id}/activity").status_int == 200  # an admin now

    removed = submit(admin.get(f"/portal/clinics/{clinic_id}/staff/{nurse_id}"), "remove", status=303).follow()
    assert f"{nurse_email} removed from the clinic" in removed.html.find(id="notice").text
    mailed_to(mail, nurse_email, "You were removed from the staff of Test Clinic")
    nurse.get(f"/portal/clinics/{clinic_id}", status=404)

    email = unique_email("staff")
    submit(admin.get(f"/portal/clinics/{clinic_id}/staff"), "invite", email=email, role="clinician", status=303)
    link = mailed_to(mail, email, "You are invited to join the staff of Test Clinic on Clinic Records").link(
        "/staff-invitations")
    assert "choose a password and join" in mailed_to(mail, email, "You are invited to join the staff of Test "
                                                                 "Clinic on Clinic Records").text
    staff = admin.get(f"/portal/clinics/{clinic_id}/staff")
    staff.forms[next(name for name in staff.forms if str(name).startswith("cancel-"))].submit(status=303)
    mailed_to(mail, email, "Your invitation to join the staff of Test Clinic was cancelled")
    assert "was cancelled" in browser(app).get(portal_path(link), status=410).text
    assert {"staff.role_changed", "staff.removed", "staff.invitation_cancelled"} <= _actions(engine, clinic_id)


def test_a_clinic_keeps_an_admin_and_a_clinician_leaves(app, world, engine, mail):
    clinic_id = world.clinic()
    admin, admin_email = staff_browser(app, clinic_id, "admin")
    nurse, nurse_email = staff_browser(app, clinic_id, "clinician")
    admin_id = _account_id(engine, admin_email)
    leave_page = admin.get(f"/portal/clinics/{clinic_id}/staff/leave")
    assert "leave-form" not in leave_page.forms  # the page says why instead
    refused_leave = admin.post(f"/portal/clinics/{clinic_id}/staff/leave",
                               {"csrf_token": leave_page.forms["logout"]["csrf_token"].value}, status=400)
    assert error_summary(refused_leave) == ["You are the clinic's only admin: make another staff member admin first"]
    demoted = submit(admin.get(f"/portal/clinics/{clinic_id}/staff/{admin_id}"), "roles", role="clinician",
                     status=400)
    assert error_summary(demoted) == ["A clinic keeps at least one admin: make another staff member admin first"]
    # Admin and clinician keeps the admin: allowed.
    submit(admin.get(f"/portal/clinics/{clinic_id}/staff/{admin_id}"), "roles", role="admin,clinician", status=303)
    assert _roles(engine, clinic_id, admin_id) == ["admin", "clinician"]
    # A clinician manages no one, and leaves.
    token = nurse.get(f"/portal/clinics/{clinic_id}/staff").forms["logout"]["csrf_token"].value
    nurse.get(f"/portal/clinics/{clinic_id}/staff/{admin_id}", status=403)
    nurse.post(f"/portal/clinics/{clinic_id}/staff/{admin_id}/remove", {"csrf_token": token}, status=403)
    left = submit(nurse.get(f"/portal/clinics/{clinic_id}/staff/leave"), "leave-form", status=303)
    assert "You left the staff of Test Clinic" in left.follow().html.find(id="notice").text
    nurse.get(f"/portal/clinics/{clinic_id}", status=404)
    assert _roles(engine, clinic_id, _account_id(engine, nurse_email)) is None
    assert "staff.left" in _actions(engine, clinic_id)


def test_clinic_staff_add_emails_the_link_it_prints_and_keeps_role_and_roles(app, world, mail):
    clinic_id = world.clinic()
    email = unique_email("solo")
    printed = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", email, "--role", "admin,clinician")
    assert set(printed) == {"clinic_id", "email", "role", "roles", "set_password_url", "expires_at"}
    assert (printed["role"], printed["roles"]) == ("admin", ["admin", "clinician"])
    message = mailed_to(mail, email, "You are invited to join the staff of Test Clinic on Clinic Records")
    assert "You are invited" in message.text and "as admin and clinician" in message.text
    assert path_of(message.link("/staff-invitations")) == path_of(printed["set_password_url"])


def test_clinic_create_with_admin_email_invites_the_first_admin(app, world, engine, mail):
    email = unique_email("first-admin")
    created = ok("clinic", "create", "--name", "Harbour Clinic", "--admin-email", email)
    assert set(created) == {"clinic_id", "admin_invitation"}
    assert set(created["admin_invitation"]) == {"email", "set_password_url", "expires_at"}
    assert created["admin_invitation"]["email"] == email
    message = mailed_to(mail, email, "You are invited to join the staff of Harbour Clinic on Clinic Records")
    link = path_of(message.link("/staff-invitations"))
    assert link == path_of(created["admin_invitation"]["set_password_url"])
    person = browser(app)
    submit(person.get(link), "join", password=PASSWORD, status=303)
    clinic_id = uuid.UUID(created["clinic_id"])
    assert _roles(engine, clinic_id, _account_id(engine, email)) == ["admin"]
    assert set(ok("clinic", "create", "--name", "Plain Clinic")) == {"clinic_id"}  # without it: as before


def test_clinic_create_with_a_bad_admin_email_creates_no_clinic(app, world):
    before = len(ok("clinic", "list")["clinics"])
    assert "format" in refused("clinic", "create", "--name", "Nope Clinic", "--admin-email", "not-an-email")
    assert len(ok("clinic", "list")["clinics"]) == before
