"""Finding the way (decision 0041): the page where a partner asks a clinic to connect is a tab of the
workspace's navigation and is linked from the Connections page, empty or not."""

import uuid

from tests.portal.helpers import with_workspace


def _tabs(page):
    """(label, path, current) of the workspace's tabs."""
    nav = page.html.find("nav", attrs={"aria-label": "Workspace"})
    return [(a.get_text(strip=True), a["href"], a.get("aria-current") == "page") for a in nav.find_all("a")]


def test_connection_requests_are_a_tab_of_every_workspace_page(app):
    client, workspace_id = with_workspace(app)
    ask = f"/portal/workspaces/{workspace_id}/connection-requests"
    for path in ("", "/keys", "/connections", "/activity"):
        assert ("Connection requests", ask, False) in _tabs(client.get(f"/portal/workspaces/{workspace_id}{path}"))
    page = client.get(f"/portal/workspaces/{workspace_id}").click("Connection requests")
    assert page.request.path == ask and page.forms["ask"]
    assert ("Connection requests", ask, True) in _tabs(page)


def test_the_connections_page_leads_to_asking_empty_or_not(app, world):
    client, workspace_id = with_workspace(app)
    empty = client.get(f"/portal/workspaces/{workspace_id}/connections")
    assert "No clinic has connected your workspace yet" in empty.text
    assert empty.click("Ask a clinic to connect").forms["ask"]
    world.grant(uuid.UUID(workspace_id), world.clinic("Harbour Clinic"), {"patients:read"})
    listed = client.get(f"/portal/workspaces/{workspace_id}/connections")
    assert "Harbour Clinic" in listed.text and listed.click("Ask a clinic to connect").forms["ask"]
