"""Decision 0047: while the business profile waits for review the live-key checklist says "in review
since …", not "do it now" (there is nothing the member can do)."""

import uuid

from tests.portal.helpers import submit, with_workspace

INTENDED_USE = "Our scheduling product reads clinics' appointments and books new ones for their patients."


def _profile_item(page):
    return next(item for item in page.html.find(class_="checklist")("li") if "business profile" in item.get_text())


def test_a_profile_in_review_is_not_asked_for_again(app, world):
    client, workspace_id = with_workspace(app)
    overview = client.get(f"/portal/workspaces/{workspace_id}")
    assert _profile_item(overview).find("a", string="do it now") is not None  # not submitted: act now
    world.set_workspace(uuid.UUID(workspace_id), verified=True)
    submit(client.get(f"/portal/workspaces/{workspace_id}/profile"), "profile", legal_name="Acme Health Ltd",
           website="https://acme.example", country="GB", contact_email="dev@acme.example",
           intended_use=INTENDED_USE, status=303)
    for path in ("", "/keys/new"):
        item = _profile_item(client.get(f"/portal/workspaces/{workspace_id}{path}"))
        assert item.find("a") is None, path
        since = item.find(class_="in-review").get_text()
        assert since.startswith("in review since 20") and since.endswith(" UTC")
    terms = next(item for item in client.get(f"/portal/workspaces/{workspace_id}").html.find(
        class_="checklist")("li") if "API Terms" in item.get_text())
    assert terms.find("a", string="do it now") is not None
