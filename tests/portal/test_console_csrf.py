"""Every clinic console form, posted without its CSRF token or from another origin, is refused and changes
nothing (the same view deriver as the developer portal's forms)."""

import uuid

import pytest
from sqlalchemy import text

from tests.common.cli import ok
from tests.portal.console_helpers import path_of, set_password_link, staff_browser
from tests.portal.helpers import browser, with_workspace
from tests.review.conftest import Clinic

TABLES = ("control.accounts", "control.clinic_staff", "control.invitations",
          "control.api_keys", "control.connections", "control.connection_requests", "control.portal_audit")


def _snapshot(engine, clinic_id):
    schema = f"clinic_{clinic_id.hex}"
    with engine.connect() as connection:
        return {table: sorted(map(repr, connection.execute(text(f"SELECT * FROM {table}")).all()))
                for table in TABLES + (f"{schema}.submissions", f"{schema}.auto_accept_settings")}


@pytest.fixture
def console(app, testapp, world):
    """A connected clinic with its own key, a pending submission, an automatically accepted item, an open
    connection request, and an admin's and a clinician's browsers."""
    clinic = Clinic(testapp, world, world.connected())
    clinic_id = clinic.id
    world.key(clinic_id=clinic_id)
    ok("auto-accept", "set", "--clinic", clinic_id, "--workspace", clinic.connected.workspace_id,
       "--kinds", "condition", "--on")
    automatic = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": "I10"}).json["data"]
    pending = clinic.allergy("Peanut").json["data"]
    developer, workspace_id = with_workspace(app)
    form = developer.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    form["clinic_id"] = str(clinic_id)
    form.fields["scopes"][0].checked = True
    form.submit(status=303)
    admin, _ = staff_browser(app, clinic_id, "admin")
    clinician, _ = staff_browser(app, clinic_id, "clinician")
    key_id = admin.get(f"/portal/clinics/{clinic_id}/keys").html.find(
        "a", string="Roll")["href"].split("/keys/")[1].split("/")[0]
    request_href = admin.get(f"/portal/clinics/{clinic_id}/connections").html.find(
        "a", string="Review the request")["href"]
    c = f"/portal/clinics/{clinic_id}"
    pages = {
        "invite": (admin, f"{c}/staff"), "new-key": (admin, f"{c}/keys"),
        "roll": (admin, f"{c}/keys/{key_id}/roll"), "revoke": (admin, f"{c}/keys/{key_id}/revoke"),
        "ip-allow": (admin, f"{c}/keys/{key_id}/ip-allow"),
        f"save-workspace:{clinic.connected.workspace_id}": (admin, f"{c}/auto-accept"),
        "approve": (admin, request_href), "decline": (admin, request_href),
        "narrow": (admin, f"{c}/connections/{clinic.connected.workspace_id}"),
        "revoke-connection": (admin, f"{c}/connections/{clinic.connected.workspace_id}"),
        "accept": (clinician, f"{c}/queue/{pending['submission_id']}"),
        "decline-submission": (clinician, f"{c}/queue/{pending['submission_id']}"),
        f"review-{automatic['target_id']}": (clinician, f"{c}/queue/reviews"),
        "ask": (developer, f"/portal/workspaces/{workspace_id}/connection-requests"),
    }
    return uuid.UUID(str(clinic_id)), pages


FORM_IDS = {"revoke-connection": "revoke", "decline-submission": "decline"}


@pytest.mark.parametrize("forgery", ["no token", "other origin"])
def test_a_forged_console_form_changes_nothing(app, engine, console, forgery):
    clinic_id, pages = console
    link, _ = set_password_link(clinic_id, "clinician")
    pages["join"] = (browser(app), path_of(link))
    for name, (client, path) in pages.items():
        form = client.get(path).forms[FORM_IDS.get(name, name)]
        fields = dict(form.submit_fields())
        headers = {}
        if forgery == "no token":
            fields.pop("csrf_token")
        else:
            headers["Origin"] = "https://attacker.example"
        if name == "join":
            fields["password"] = "a long enough phrase 9"
        before = _snapshot(engine, clinic_id)
        answer = client.post(form.action, fields, headers=headers, status=403)
        assert "Nothing was changed" in answer.text, name
        assert _snapshot(engine, clinic_id) == before, name
