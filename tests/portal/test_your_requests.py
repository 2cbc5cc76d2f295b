"""A partner's "Your requests" (the workspace's connection requests): each shows the permissions it asked for
and, while it waits, can be withdrawn; then the clinic's admin sees it withdrawn and can no longer grant it,
and the organization may ask again. The clinic stays as hidden as before: no clinic's name on the page, and
the one message for an id that is malformed, unknown, another workspace's or no longer waiting."""

import uuid

import pytest
from sqlalchemy import select

from clinicrecords.access.models import Connection
from clinicrecords.portal.clinic_connections.models import ConnectionRequest
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary, with_workspace

NOT_WAITING = "This request is not waiting for an answer: it was answered or withdrawn already"


def _ask(client, workspace_id, clinic_id, scopes, status=303):
    form = client.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    form["clinic_id"] = str(clinic_id)
    for box in form.fields["scopes"]:
        box.checked = box._value in scopes
    return form.submit(status=status)


def _request_ids(world, workspace_id):
    with world.db() as db:
        return db.scalars(select(ConnectionRequest.id).where(ConnectionRequest.workspace_id == uuid.UUID(workspace_id))
                          .order_by(ConnectionRequest.requested_at)).all()


def _status(world, request_id):
    with world.db() as db:
        return db.scalar(select(ConnectionRequest.status).where(ConnectionRequest.id == request_id))


def test_a_request_shows_what_it_asked_and_is_withdrawn_while_it_waits(app, world):
    clinic_id = world.clinic(name="Harbour Clinic")
    client, workspace_id = with_workspace(app, name="Beacon Labs")
    world.set_workspace(uuid.UUID(workspace_id), verified=True, paid=True, terms_accepted=True)
    _ask(client, workspace_id, clinic_id, ["allergies:read", "patients:read"])
    page = client.get(f"/portal/workspaces/{workspace_id}/connection-requests")
    row = page.html.find(id="requests").find("tbody").find("tr")
    cells = [cell.get_text(" ", strip=True) for cell in row("td")]
    assert cells[0] == str(clinic_id) and "Harbour Clinic" not in page.text
    assert "See the allergies on patients' charts" in cells[2] and "patients:read" in cells[2]
    assert cells[3].startswith("Waiting for the clinic")
    [request_id] = _request_ids(world, workspace_id)
    admin, _ = staff_browser(app, clinic_id, "admin")
    decide = admin.get(f"/portal/clinics/{clinic_id}/connections/requests/{request_id}")

    done = page.forms[f"withdraw-{request_id}"].submit(status=303).follow()
    assert "Request withdrawn" in done.text
    row = done.html.find(id="requests").find("tbody").find("tr")
    assert row("td")[3].get_text(" ", strip=True).startswith("Withdrawn")
    assert f"withdraw-{request_id}" not in done.forms
    assert _status(world, request_id) == "withdrawn"

    listing = admin.get(f"/portal/clinics/{clinic_id}/connections").html.find(id="requests")
    assert "Withdrawn by the organization" in listing.get_text(" ", strip=True)
    late = decide.forms["approve"].submit(status=409)
    assert "Beacon Labs withdrew this request" in late.text and "nothing was changed" in late.text
    with world.db() as db:
        assert db.scalar(select(Connection.id).where(Connection.workspace_id == uuid.UUID(workspace_id))) is None
    assert "withdrew this request" in admin.get(f"/portal/clinics/{clinic_id}/connections/requests/"
                                                f"{request_id}").text
    assert "Request sent" in _ask(client, workspace_id, clinic_id, ["patients:read"]).follow().text


@pytest.mark.parametrize("request_id", ["not-an-id", "", "00000000-0000-4000-8000-000000000000", "theirs",
                                        "withdrawn", "with\x00nul"],
                         ids=["malformed", "empty", "unknown", "another-workspaces", "already-withdrawn", "nul"])
def test_one_message_for_every_id_that_is_not_a_waiting_request_of_ours(app, world, request_id):
    clinic_id = world.clinic(name="Harbour Clinic")
    client, workspace_id = with_workspace(app, name="Beacon Labs")
    other, other_id = with_workspace(app, name="Cove Health")
    _ask(other, other_id, clinic_id, ["patients:read"])
    [theirs] = _request_ids(world, other_id)
    _ask(client, workspace_id, clinic_id, ["patients:read"])
    [ours] = _request_ids(world, workspace_id)
    page = client.get(f"/portal/workspaces/{workspace_id}/connection-requests")
    if request_id == "withdrawn":
        page.forms[f"withdraw-{ours}"].submit(status=303)
        request_id = str(ours)
    elif request_id == "theirs":
        request_id = str(theirs)
    form = page.forms[f"withdraw-{ours}"]
    form["request_id"].force_value(request_id)
    answer = form.submit(status=400)
    assert error_summary(answer) == [NOT_WAITING]
    assert answer.html.find(class_="error-summary").find("a", href="#request_id") is not None
    assert "Harbour Clinic" not in answer.text and "Cove Health" not in answer.text
    assert _status(world, theirs) == "pending"
