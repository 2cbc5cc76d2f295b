"""The face the visitor is on (decision 0042). A submission someone else decided meanwhile says who decided
it and when, instead of a bare 404 (409 when deciding it again, nothing changed); and the error pages (403,
404, 500) wear the clinic console's face for its staff and the developer portal's for developers, each
leading to that face's home. The 500s are real: a table the page reads is renamed away inside the test's
transaction, as a half-applied migration would leave it."""

import re
import uuid

import pytest
from sqlalchemy import select, text

from clinicrecords.clinics.services import open_clinic
from clinicrecords.db.tenancy import schema_name
from clinicrecords.events.models import Event
from tests.common.cli import ok
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import browser, submit, with_workspace
from tests.review.conftest import Clinic


@pytest.fixture
def clinic(testapp, world):
    connected = world.connected()
    world.webhook(workspace_id=connected.workspace_id, mode="live")  # so decisions are recorded as events
    return Clinic(testapp, world, connected)


def _face(page):
    """(the masthead's brand, the error page's way home as (label, path))."""
    brand = page.html.find(class_="brand").find("span").get_text(strip=True)
    home = page.html.find(id="main").find_all("a")[-1]
    return brand, (home.get_text(strip=True), home["href"])


def _decided(page):
    return re.sub(r"\s+", " ", page.html.find(id="decided").get_text(" ", strip=True))


def _decided_events(world, clinic_id, submission_id):
    with world.request() as request:
        open_clinic(request.db, clinic_id)
        return request.db.scalars(select(Event.type).where(Event.subject_id == uuid.UUID(submission_id))).all()


def test_a_submission_decided_meanwhile_says_who_decided_it_and_when(app, clinic, world):
    sent = clinic.allergy("Peanut").json["data"]["submission_id"]
    first, first_email = staff_browser(app, clinic.id, "clinician")
    second, _ = staff_browser(app, clinic.id, "clinician")
    here = f"/portal/clinics/{clinic.id}/queue/{sent}"
    stale = second.get(here)  # both open it; the first accepts
    first.get(here).forms["accept"].submit(status=303)

    again = stale.forms["accept"].submit(status=409)
    words = _decided(again)
    assert words.startswith("This submission was already accepted Accepted by " + first_email + " on ")
    # In the clinic's time, named (UTC until the clinic sets its zone): "on 29 Nov 2026, 08:26 UTC".
    assert re.search(r" on \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC: the allergy for Ada Quill\.", words)
    assert "Your acceptance was not recorded: nothing was changed." in words
    assert _face(again)[0] == "clinic console"
    assert again.html.find("a", string="Back to the queue")["href"] == f"/portal/clinics/{clinic.id}/queue"
    declined = submit(stale, "decline", reason="Not confirmed by the patient", status=409)
    assert "Your decline was not recorded: nothing was changed." in _decided(declined)
    assert _decided_events(world, clinic.id, sent) == ["submission.decided"]  # decided once
    opened = second.get(here, status=200)
    assert _decided(opened).startswith(f"This submission was already accepted Accepted by {first_email}")


def test_who_decided_reads_automatic_acceptance_the_sender_or_an_operator(app, clinic, testapp):
    clinician, _ = staff_browser(app, clinic.id, "clinician")
    ok("auto-accept", "set", "--clinic", clinic.id, "--workspace", clinic.connected.workspace_id,
       "--kinds", "condition", "--on")
    automatic = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": "I10"}).json["data"]
    withdrawn = clinic.allergy("Peanut").json["data"]["submission_id"]
    testapp.delete(clinic.url(f"submissions/{withdrawn}"), headers=clinic.headers, status=200)
    declined = clinic.allergy("Sesame").json["data"]["submission_id"]
    clinic.decline(declined, "--reason", "Duplicate")
    queue = f"/portal/clinics/{clinic.id}/queue"
    assert "already accepted Accepted by automatic acceptance" in _decided(
        clinician.get(f"{queue}/{automatic['submission_id']}"))
    assert "already withdrawn Withdrawn by its sender, Test Workspace" in _decided(
        clinician.get(f"{queue}/{withdrawn}"))
    assert "already declined Declined by an operator of the service" in _decided(
        clinician.get(f"{queue}/{declined}"))
    clinician.get(f"{queue}/{uuid.uuid4()}", status=404)  # absent: still the one 404


def test_console_errors_wear_the_console_and_lead_to_its_home(app, world):
    clinic_id = world.clinic("Harbour Clinic")
    clinician, _ = staff_browser(app, clinic_id, "clinician")
    home = ("Go to the clinic console", f"/portal/clinics/{clinic_id}")
    assert _face(clinician.get(f"/portal/clinics/{clinic_id}/queue/{uuid.uuid4()}", status=404)) \
        == ("clinic console", home)
    assert _face(clinician.get(f"/portal/clinics/{clinic_id}/keys", status=403)) == ("clinic console", home)
    anywhere = ("clinic console", ("Go to the clinic console", "/portal/"))
    assert _face(clinician.get("/portal/no-such-page", status=404)) == anywhere
    assert _face(clinician.get(f"/portal/clinics/{uuid.uuid4()}", status=404)) == anywhere
    assert _face(browser(app).get("/portal/staff-invitations?token=not-a-token", status=404)) == anywhere


def test_developer_errors_wear_the_developer_portal(app, world):
    developer, workspace_id = with_workspace(app)
    home = ("developer portal", ("Go to your workspaces", "/portal/"))
    assert _face(developer.get(f"/portal/workspaces/{uuid.uuid4()}", status=404)) == home
    assert _face(developer.get("/portal/no-such-page", status=404)) == home
    # A developer who follows a console link is still on the developer portal.
    assert _face(developer.get(f"/portal/clinics/{world.clinic()}", status=404)) == home
    assert _face(browser(app).get("/portal/no-such-page", status=404)) == home


def _rename(engine, table, to):
    with engine.begin() as connection:  # inside the test's transaction: undone when the test ends
        connection.execute(text(f"ALTER TABLE {table} RENAME TO {to}"))


def test_a_500_wears_the_face_of_the_page_that_failed(app, world, engine):
    clinic_id = world.clinic("Harbour Clinic")
    clinician, _ = staff_browser(app, clinic_id, "clinician")
    developer, workspace_id = with_workspace(app)
    _rename(engine, f"{schema_name(clinic_id)}.submissions", "submissions_away")
    _rename(engine, "control.portal_audit", "portal_audit_away")

    broken = clinician.get(f"/portal/clinics/{clinic_id}/queue", status=500)
    assert "Something went wrong" in broken.text and "submissions" not in broken.text
    assert _face(broken) == ("clinic console", ("Go to the clinic console", f"/portal/clinics/{clinic_id}"))
    broken = developer.get(f"/portal/workspaces/{workspace_id}/activity", status=500)
    assert "Something went wrong" in broken.text and "portal_audit" not in broken.text
    assert _face(broken) == ("developer portal", ("Go to your workspaces", "/portal/"))
