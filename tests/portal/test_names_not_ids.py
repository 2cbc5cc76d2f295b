"""Decision 0048: the activity (audit) and request-log pages of both faces show workspaces', clinics' and
keys' names where they showed ids (the id beside it), resolved in one statement per page, not one per row."""

import uuid

from sqlalchemy import select

from clinicrecords.portal.clinic_connections.models import ConnectionRequest
from tests.common.statements import statements
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import create_key, secret_of, with_workspace


def _what(page):
    """The "What happened" cell of each activity row: (the text shown, the id in its title or None): a sentence,
    then the id it names."""
    rows = page.html.find("tbody")("tr")
    return [(row("td")[2].get_text(" ", strip=True),
             (row("td")[2].find("span", title=True) or {}).get("title")) for row in rows]


def _ask(app, clinic_id, name):
    """A new workspace named `name` asks the clinic to connect; returns (browser, workspace id)."""
    client, workspace_id = with_workspace(app, name=name)
    form = client.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    form["clinic_id"] = str(clinic_id)
    form.fields["scopes"][0].checked = True
    form.submit(status=303)
    return client, workspace_id


def test_the_workspaces_activity_names_the_clinic_it_asked(app, world):
    clinic_id = world.clinic(name="Harbour Clinic")
    client, workspace_id = _ask(app, clinic_id, "Beacon Labs")
    rows = _what(client.get(f"/portal/workspaces/{workspace_id}/activity"))
    assert rows[0] == (f"Asked Harbour Clinic to connect, for see the allergies on patients' charts {clinic_id}",
                       str(clinic_id))


def test_the_clinics_activity_names_organizations_and_keys_in_one_statement(app, world, engine):
    clinic_id = world.clinic(name="Harbour Clinic")
    admin, _ = staff_browser(app, clinic_id, "admin")
    asked = [_ask(app, clinic_id, name)[1] for name in ("Beacon Labs", "Cove Health")]
    with world.db() as db:
        pending = db.scalars(select(ConnectionRequest.id).where(ConnectionRequest.clinic_id == clinic_id)
                             .order_by(ConnectionRequest.requested_at)).all()
    admin.get(f"/portal/clinics/{clinic_id}/connections/requests/{pending[0]}").forms["decline"].submit(status=303)
    page = f"/portal/clinics/{clinic_id}/activity"
    with statements(engine) as few:
        rows = _what(admin.get(page))
    assert rows[0] == (f"Declined the request of Beacon Labs to connect {asked[0]}", asked[0])
    admin.get(f"/portal/clinics/{clinic_id}/connections/requests/{pending[1]}").forms["decline"].submit(status=303)
    key_id = secret_of(_created(admin, clinic_id, "Front desk app")).split("_")[2]
    form = admin.get(f"/portal/clinics/{clinic_id}/auto-accept").forms[f"save-key:{key_id}"]
    form.fields["kinds"][0].checked = True
    form.submit(status=303)
    with statements(engine) as more:
        rows = _what(admin.get(page))
    assert rows[0] == (f"Switched automatic acceptance on for allergies from Front desk app "
                       f"ehr_live_{key_id[:4]}************", f"ehr_live_{key_id[:4]}************")
    assert (f"Declined the request of Cove Health to connect {asked[1]}", asked[1]) in rows
    assert len(more) == len(few)  # more rows to name, no more statements


def _created(admin, clinic_id, name):
    form = admin.get(f"/portal/clinics/{clinic_id}/keys").forms["new-key"]
    form["name"] = name
    return form.submit(status=303).follow()


def test_the_request_log_names_the_clinic_and_the_key(app, registry):
    client, workspace_id = with_workspace(app, name="Delta Apps")
    secret = secret_of(create_key(client, workspace_id, name="Reporting job"))
    sandbox = uuid.UUID(client.get(f"/portal/workspaces/{workspace_id}").html.find(
        "dt", string="Sandbox clinic id").find_next("dd").get_text(strip=True))
    client.get(f"/v1/clinics/{sandbox}/patients", headers={"Authorization": f"Bearer {secret}"})
    assert registry["request_log.writer"].flush(timeout=10)
    row = client.get(f"/portal/workspaces/{workspace_id}/requests").html.find(id="requests").find("tbody").find("tr")
    key, clinic = row("td")[1:3]
    assert key.get_text(" ", strip=True) == f"Reporting job ehr_test_{secret.split('_')[2][:4]}************"
    assert clinic.get_text(strip=True) == "Delta Apps sandbox clinic" and clinic.span["title"] == str(sandbox)
