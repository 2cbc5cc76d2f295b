"""Clinic staff (decision 0033): the operator's set-password link, log in, the admin's invitations, the
roles' pages, and the two faces of the portal kept apart (staff never open workspaces, developers never
open clinics); another clinic's id answers 404."""

from sqlalchemy import select

from clinicrecords.identity.models import ClinicStaff
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import refused
from tests.portal.console_helpers import path_of, set_password_link, staff_browser
from tests.portal.helpers import PASSWORD, browser, error_summary, submit, with_workspace


def test_the_operator_link_sets_a_password_once_and_signs_in(app, world, engine):
    clinic_id = world.clinic()
    link, email = set_password_link(clinic_id, "admin")
    assert "/portal/staff-invitations?token=" in link
    client = browser(app)
    page = client.get(path_of(link))
    assert email in page.text and "Test Clinic" in page.text
    short = submit(page, "join", password="short", status=400)
    assert error_summary(short) and "12" in error_summary(short)[0]
    answer = submit(short, "join", password=PASSWORD, status=303)
    overview = answer.follow()
    assert "You have joined the staff of" in overview.text and "admin" in overview.text
    assert client.get("/portal/").status_int == 303  # home: to the clinic, not the workspace list
    assert "already used" in browser(app).get(path_of(link), status=410).text  # used once
    login = browser(app)
    page = login.get("/portal/login")
    assert submit(page, "login", email=email, password=PASSWORD, status=303)
    assert login.get("/portal/").location.endswith(f"/portal/clinics/{clinic_id}")
    with engine.connect() as connection:
        actions = connection.execute(select(PortalAuditEntry.action).where(
            PortalAuditEntry.clinic_id == clinic_id)).scalars().all()
    assert sorted(actions) == ["staff.invited", "staff.joined"]


def test_staff_add_refuses_bad_input_and_changes_nothing(world, engine):
    clinic_id = world.clinic()
    assert "format" in refused("clinic", "staff", "add", "--clinic", clinic_id, "--email", "nope", "--role",
                               "admin")
    assert "no clinic" in refused("clinic", "staff", "add", "--clinic",
                                  "00000000-0000-0000-0000-000000000001",
                                  "--email", "a@example.org", "--role", "admin")
    _, sandbox_id = world.workspace()
    assert "sandbox" in refused("clinic", "staff", "add", "--clinic", sandbox_id,
                                "--email", "b@example.org", "--role", "admin")


def test_a_developer_account_never_joins_a_clinic_and_staff_never_open_workspaces(app, world):
    clinic_id = world.clinic()
    developer, workspace_id = with_workspace(app)
    developer_email = developer.get("/portal/").html.find(class_="who").get_text().strip()
    assert "developer portal account" in refused("clinic", "staff", "add", "--clinic", clinic_id,
                                                 "--email", developer_email, "--role", "admin")
    developer.get(f"/portal/clinics/{clinic_id}", status=404)
    staff, _ = staff_browser(app, clinic_id, "admin")
    staff.get(f"/portal/workspaces/{workspace_id}", status=404)
    assert staff.get("/portal/workspaces/new", status=403)
    page = staff.get("/portal/workspaces/new", status=403)
    assert "Create a workspace" not in page.text


def test_an_admin_invites_a_clinician_who_never_sees_admin_pages(app, world, engine):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    page = admin.get(f"/portal/clinics/{clinic_id}/staff")
    bad = submit(page, "invite", email="not-an-email", role="clinician", status=400)
    assert error_summary(bad) == ["Enter an email address in the right format, like name@example.com"]
    assert bad.forms["invite"]["email"].value == "not-an-email"
    done = submit(bad, "invite", email="nurse@example.org", role="clinician", status=303).follow()
    link = done.html.find(id="invitation-link").get_text().strip()
    assert done.headers["Cache-Control"] == "no-store"
    nurse = browser(app)
    submit(nurse.get(path_of(link)), "join", password=PASSWORD, status=303)
    overview = nurse.get(f"/portal/clinics/{clinic_id}").text
    assert "Open the review queue" in overview and ">Review queue</a>" in overview
    assert ">Activity</a>" not in overview
    token = nurse.get(f"/portal/clinics/{clinic_id}/staff").forms["logout"]["csrf_token"].value
    answers = [nurse.get(f"/portal/clinics/{clinic_id}/activity", status=403),
               nurse.post(f"/portal/clinics/{clinic_id}/staff/invite",
                          {"csrf_token": token, "email": "x@example.org", "role": "admin"}, status=403)]
    for answer in answers:
        assert "Your role on the staff of this clinic does not include this page" in answer.text
    assert "Invite someone" not in nurse.get(f"/portal/clinics/{clinic_id}/staff").text
    with engine.connect() as connection:
        roles = connection.scalars(select(ClinicStaff.roles).where(ClinicStaff.clinic_id == clinic_id)).all()
    assert sorted(roles) == [["admin"], ["clinician"]]


def test_another_clinics_ids_answer_404(app, world):
    mine, other = world.clinic(), world.clinic(name="Other Clinic")
    staff, _ = staff_browser(app, mine, "admin")
    staff_browser(app, other, "admin")
    for path in ("", "/staff", "/activity"):
        staff.get(f"/portal/clinics/{other}{path}", status=404)
    staff.get("/portal/clinics/not-a-uuid", status=404)


def test_an_existing_staff_account_joins_a_second_clinic_signed_in(app, world):
    first, second = world.clinic(), world.clinic(name="Second Clinic")
    staff, email = staff_browser(app, first, "clinician")
    link, _ = set_password_link(second, "admin", email=email)
    anonymous = browser(app).get(path_of(link))
    assert "join" not in anonymous.forms and "Log in as" in anonymous.text
    page = staff.get(path_of(link))
    answer = submit(page, "join", status=303)
    assert answer.location.endswith(f"/portal/clinics/{second}?joined=1")
    assert "Second Clinic" in staff.get(f"/portal/clinics/{first}").text
