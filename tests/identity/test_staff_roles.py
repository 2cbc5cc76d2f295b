"""Clinic roles combine (decision 0087): `clinic staff add --role admin,clinician` (its JSON keeps `role`,
the first, and adds `roles`), an admin's invitation for both, and the permission map reading both roles: an
admin who is also a clinician manages the staff and opens the review queue. Refused roles change nothing."""

import pytest
from sqlalchemy import select

from clinicrecords.identity.models import ClinicStaff, Invitation
from tests.common.cli import ok, refused, row_counts
from tests.portal.console_helpers import path_of, staff_browser
from tests.portal.helpers import PASSWORD, browser, enrol_app, error_summary, submit, unique_email


def _roles_of(engine, clinic_id, email_like):
    from clinicrecords.identity.models import Account

    with engine.connect() as connection:
        return connection.scalar(select(ClinicStaff.roles).join(Account, Account.id == ClinicStaff.account_id)
                                 .where(ClinicStaff.clinic_id == clinic_id, Account.email == email_like))


def _join(app, link):
    client = browser(app)
    answer = submit(client.get(path_of(link)), "join", password=PASSWORD, status=303)
    return client, answer.follow()


@pytest.mark.parametrize("given, role, roles", [
    ("admin,clinician", "admin", ["admin", "clinician"]),
    ("clinician,admin", "admin", ["admin", "clinician"]),
    ("clinician", "clinician", ["clinician"]),
    ("admin", "admin", ["admin"]),
])
def test_staff_add_prints_role_and_roles(world, given, role, roles):
    clinic_id, email = world.clinic(), unique_email("staff")
    result = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", email, "--role", given)
    assert (result["role"], result["roles"], result["email"]) == (role, roles, email)
    assert set(result) == {"clinic_id", "email", "role", "roles", "set_password_url", "expires_at"}


@pytest.mark.parametrize("given", ["nurse", "admin,nurse", "admin,admin", "", "admin,", "owner"])
def test_staff_add_refuses_other_roles_and_changes_nothing(world, engine, capsys, given):
    clinic_id = world.clinic()
    before = row_counts(engine, Invitation, ClinicStaff)
    capsys.readouterr()
    refused("clinic", "staff", "add", "--clinic", clinic_id, "--email", unique_email("staff"), "--role", given)
    assert "give admin, clinician or admin,clinician" in capsys.readouterr().err  # argparse's own message
    assert row_counts(engine, Invitation, ClinicStaff) == before


def test_an_admin_who_is_also_a_clinician_manages_staff_and_opens_the_queue(app, world, engine):
    clinic_id = world.clinic()
    email = unique_email("solo")
    link = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", email, "--role",
              "admin,clinician")["set_password_url"]
    client, overview = _join(app, link)
    assert "admin and clinician" in overview.text
    assert "As an admin you manage" in overview.text and "Open the review queue" in overview.text
    tabs = [a.get_text(strip=True) for a in overview.html.select("nav.subnav a")]
    assert {"Review queue", "API keys", "Staff"} <= set(tabs)
    enrol_app(client)  # staff open the queue with a second factor (decision 0086)
    assert client.get(f"/portal/clinics/{clinic_id}/queue").status_int == 200
    assert client.get(f"/portal/clinics/{clinic_id}/keys").status_int == 200
    assert "Invite someone" in client.get(f"/portal/clinics/{clinic_id}/staff").text
    assert _roles_of(engine, clinic_id, email) == ["admin", "clinician"]


def test_an_admin_alone_still_does_not_open_the_queue(app, world):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    assert "does not include this page" in admin.get(f"/portal/clinics/{clinic_id}/queue", status=403).text


def test_an_admin_invites_someone_as_both_from_the_staff_page(app, world, engine):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    page = admin.get(f"/portal/clinics/{clinic_id}/staff")
    email = unique_email("both")
    answer = submit(page, "invite", email=email, role="admin,clinician", status=303).follow()
    assert email in answer.text and "admin and clinician" in answer.text
    link = answer.html.find(id="invitation-link").get_text().strip()
    _, overview = _join(app, link)
    assert "admin and clinician" in overview.text
    assert _roles_of(engine, clinic_id, email) == ["admin", "clinician"]


def test_the_staff_page_refuses_a_role_it_does_not_offer(app, world, engine):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    before = row_counts(engine, Invitation)
    page = admin.get(f"/portal/clinics/{clinic_id}/staff")
    form = page.forms["invite"]
    form["email"] = unique_email("x")
    form["role"].force_value("owner")
    refusal = form.submit(status=400)
    assert error_summary(refusal) == ["Choose admin, clinician or both"]
    assert row_counts(engine, Invitation) == before
