"""The clinic console reads as words, not codes: the activity trail is sentences with the clinic's local times
and the patient's name (never an action's code, a Python list, an ISO stamp or a submission's id); the review
queue shows coded values as their text and a clinic key's name as the sender; a declined submission shows its
reason; the connected organizations' status column holds a status, the expiry is a date field, and the
approval email says until when."""

import datetime
import re
import uuid
import zoneinfo

import pytest
from sqlalchemy import select, update

from clinicrecords.access.models import Connection
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import ok
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import create_key, mailed_to, secret_of, signed_up, submit, with_workspace
from tests.review.conftest import Clinic

ZONE = "Pacific/Auckland"
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
A_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def clinic(testapp, world):
    return Clinic(testapp, world, world.connected())


def _ask(developer, workspace_id, clinic_id, scopes):
    form = developer.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    form["clinic_id"] = str(clinic_id)
    for box in form.fields["scopes"]:
        box.checked = box._value in scopes
    form.submit(status=303)


def _asking_organization(app, world, clinic_id, name, scopes):
    """A new workspace `name` asks the clinic for `scopes`: (its owner's browser, its id, the owner's email)."""
    developer, email = signed_up(app)
    answer = submit(developer.get("/portal/workspaces/new"), "workspace", name=name, status=303)
    workspace_id = re.search(r"/portal/workspaces/([0-9a-f-]{36})", answer.location).group(1)
    world.set_workspace(uuid.UUID(workspace_id), verified=True, paid=True, terms_accepted=True)
    _ask(developer, workspace_id, clinic_id, scopes)
    return developer, workspace_id, email


def _rows(page):
    """The activity table's rows as (when, who, what) texts."""
    return [tuple(cell.get_text(" ", strip=True) for cell in row("td"))
            for row in page.html.find(id="activity").find("tbody")("tr")]


def _entries(engine, clinic_id):
    with engine.connect() as connection:
        return connection.execute(select(PortalAuditEntry.action, PortalAuditEntry.at, PortalAuditEntry.target)
                                  .where(PortalAuditEntry.clinic_id == clinic_id)).all()


def _in_zone(moment):
    local = moment.astimezone(zoneinfo.ZoneInfo(ZONE))
    return f"{local.day} {local.strftime('%b %Y, %H:%M')} {local.tzname()}"


def test_the_activity_is_sentences_in_the_clinics_time_naming_the_patient(app, world, engine, clinic):
    ok("clinic", "set", str(clinic.id), "--timezone", ZONE)
    admin, admin_email = staff_browser(app, clinic.id, "admin")
    clinician, clinician_email = staff_browser(app, clinic.id, "clinician")
    sent = clinic.allergy("Penicillin").json["data"]
    page = clinician.get(f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}")
    submit(page, "decline", reason="The patient says this was a rash from a detergent", status=303)
    _, workspace_id, _ = _asking_organization(app, world, clinic.id, "Harbour Labs",
                                              ["allergies:read", "patients:read"])
    request_page = admin.get(f"/portal/clinics/{clinic.id}/connections").click("Review the request")
    submit(request_page, "approve", expires_on="2099-12-31", status=303)
    staff_page = admin.get(f"/portal/clinics/{clinic.id}/staff")
    submit(staff_page, "invite", email="new.nurse@example.org", role="clinician", status=303)
    sender = f"save-workspace:{clinic.connected.workspace_id}"
    form = admin.get(f"/portal/clinics/{clinic.id}/auto-accept").forms[sender]
    form.fields["kinds"][0].checked = True
    form.submit(status=303)

    activity = admin.get(f"/portal/clinics/{clinic.id}/activity")
    rows = _rows(activity)
    text = activity.html.find(id="activity").get_text(" ", strip=True)
    entries = _entries(engine, clinic.id)
    for action, _, _ in entries:
        assert action not in text, action
    assert "['" not in text and "[]" not in text
    assert not ISO_DAY.search(text)
    assert sent["submission_id"] not in text
    found = {what: (when, who) for when, who, what in rows}
    declined = next(what for what in found if what.startswith("Declined"))
    assert declined == ("Declined the allergy for Ada Quill "
                        "Reason given: The patient says this was a rash from a detergent")
    assert found[declined][1] == clinician_email
    moment = next(at for action, at, _ in entries if action == "submission.declined")
    assert found[declined][0] == _in_zone(moment)
    approved = next(what for what in found if what.startswith("Connected Harbour Labs"))
    assert approved.startswith("Connected Harbour Labs: see the allergies on patients' charts and ")
    assert ", until the end of 31 Dec 2099" in approved and workspace_id in approved  # the id as a hint
    assert "Invited new.nurse@example.org to the staff as clinician" in found
    assert any(what.startswith("Switched automatic acceptance on for allergies from Test Workspace")
               for what in found)
    assert f"Times are the clinic's ({ZONE})" in " ".join(activity.html.find(class_="lead").get_text().split())


def test_the_queue_reads_coded_values_and_the_clinic_keys_name(app, world, testapp, clinic):
    key = world.key(clinic_id=clinic.id, name="Front desk tablet")
    testapp.post_json(f"/v1/clinics/{clinic.id}/allergies",
                      {"patient_id": clinic.patient_id, "substance": {"text": "Penicillin", "rxnorm": "7980"},
                       "criticality": "high"},
                      headers={"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}, status=202)
    clinician, _ = staff_browser(app, clinic.id, "clinician")
    entry = clinician.get(f"/portal/clinics/{clinic.id}/queue").html.find(class_="queue-entry")
    text = entry.get_text(" ", strip=True)
    assert "Text:" not in text and "Rxnorm" not in text
    proposed = {dt.get_text(strip=True): dt.find_next("dd").get_text(strip=True) for dt in entry("dt")}
    assert proposed["Substance"] == "Penicillin (RxNorm 7980)"
    assert "From the clinic's own key “Front desk tablet”" in text
    assert "This clinic's own key" not in text


def test_a_declined_submission_shows_its_reason(app, clinic):
    clinician, email = staff_browser(app, clinic.id, "clinician")
    sent = clinic.allergy("Latex").json["data"]
    page = clinician.get(f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}")
    submit(page, "decline", reason="Already recorded as a latex intolerance", status=303)
    decided = clinician.get(f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}").html.find(id="decided")
    text = decided.get_text(" ", strip=True)
    assert f"Declined by {email}" in text
    assert "The reason given: Already recorded as a latex intolerance" in text


def test_connected_organizations_hold_a_status_and_the_expiry_is_a_date_field(app, world, clinic, mail):
    _, workspace_id, owner = _asking_organization(app, world, clinic.id, "Harbour Labs", ["patients:read"])
    admin, _ = staff_browser(app, clinic.id, "admin")
    decide = admin.get(f"/portal/clinics/{clinic.id}/connections").click("Review the request")
    field = decide.html.find("input", attrs={"name": "expires_on"})
    assert field["type"] == "date" and field["min"] == datetime.datetime.now(datetime.UTC).date().isoformat()
    submit(decide, "approve", expires_on="2099-12-31", status=303)
    told = mailed_to(mail, owner, "Test Clinic approved a connection to Harbour Labs")
    assert "The connection ends by itself on 31 December 2099 at 23:59 UTC" in told.text
    assert "The connection ends by itself on 31 December 2099 at 23:59 UTC" in told.html

    with world.db() as db:  # the operator's connection ran out yesterday
        db.execute(update(Connection).where(Connection.workspace_id == clinic.connected.workspace_id,
                                            Connection.clinic_id == clinic.id)
                   .values(expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1)))
    listing = admin.get(f"/portal/clinics/{clinic.id}/connections")
    table = listing.html.find(id="connections")
    header = [th.get_text(strip=True) for th in table.find("thead")("th")]
    assert header == ["Organization", "Permissions", "Connected", "Expires", "Status", "Actions"]
    status = {row("td")[0].get_text(strip=True): row("td")[4].get_text(" ", strip=True)
              for row in table.find("tbody")("tr")}
    assert status["Harbour Labs"] == "Active"
    assert status["Test Workspace"].startswith("Expired on ")
    change = admin.get(f"/portal/clinics/{clinic.id}/connections/{workspace_id}")
    assert change.html.find("input", attrs={"name": "expires_on"})["type"] == "date"
    change.forms["revoke"].submit(status=303)
    table = admin.get(f"/portal/clinics/{clinic.id}/connections").html.find(id="connections")
    status = {row("td")[0].get_text(strip=True): row("td")[4].get_text(" ", strip=True)
              for row in table.find("tbody")("tr")}
    assert status["Harbour Labs"].startswith("Revoked")
    actions = {row("td")[0].get_text(strip=True): row("td")[5].get_text(" ", strip=True)
               for row in table.find("tbody")("tr")}
    assert actions["Harbour Labs"] == "" and actions["Test Workspace"] == "Narrow or revoke"


def test_the_workspaces_activity_is_sentences_too(app):
    """The developer portal's Activity reads as the console's does: a sentence each, no action code, no Python
    list, no ISO stamp; its times in UTC, named."""
    client, workspace_id = with_workspace(app)
    secret = secret_of(create_key(client, workspace_id))
    submit(client.get(f"/portal/workspaces/{workspace_id}/keys/{secret.split('_')[2]}/roll"), "roll", overlap="1h")
    page = client.get(f"/portal/workspaces/{workspace_id}/activity")
    rows = [[cell.get_text(" ", strip=True) for cell in row("td")] for row in page.html.find(id="activity").tbody("tr")]
    whats = [row[2] for row in rows]
    assert any(what.startswith("Rolled the key ") for what in whats)
    assert any(what.startswith("Created the test key ") for what in whats)
    assert any(what.startswith("Created the workspace “") for what in whats)
    said = " ".join(whats)
    assert not re.search(r"\b[a-z_]+\.[a-z_]+\b|\[|\d{4}-\d{2}-\d{2}T", said), said
    assert all(row[0].endswith(" UTC") for row in rows)
