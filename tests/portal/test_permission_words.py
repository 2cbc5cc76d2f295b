"""Permissions in plain words (decision 0038): every permission has a description, written once in the
access context; the clinic console's connection pages, the developer portal's request page and the OpenAPI
document (its introduction, each operation and `GET /v1/connections`' scopes) show those same words."""

import uuid

from clinicrecords.access.interfaces import ALL_PERMISSIONS, PERMISSION_DESCRIPTIONS, describe_permission
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import with_workspace

ASKED = ("allergies:write", "patients:read")


def _label(page, form_id, scope):
    """The text of the label of the checkbox for `scope`."""
    box = page.html.find(id=form_id).find("input", attrs={"name": "scopes", "value": scope})
    return page.html.find("label", attrs={"for": box["id"]}).get_text(" ", strip=True)


def test_every_permission_has_a_description_of_its_own():
    assert set(PERMISSION_DESCRIPTIONS) == ALL_PERMISSIONS
    texts = list(PERMISSION_DESCRIPTIONS.values())
    assert all(text.strip() and ":" not in text.split()[0] for text in texts)
    assert len(set(texts)) == len(texts)  # no two permissions read the same
    assert describe_permission("allergies:write") == PERMISSION_DESCRIPTIONS["allergies:write"]


def test_the_console_and_the_portal_show_what_each_permission_allows(app, world):
    clinic_id = world.clinic()
    developer, workspace_id = with_workspace(app, name="Acme Health")
    asking = developer.get(f"/portal/workspaces/{workspace_id}/connection-requests")
    for scope in ALL_PERMISSIONS:
        assert _label(asking, "ask", scope) == f"{describe_permission(scope)} {scope}"
    form = asking.forms["ask"]
    form["clinic_id"] = str(clinic_id)
    for field in form.fields["scopes"]:
        field.checked = field._value in ASKED
    form.submit(status=303)

    admin, _ = staff_browser(app, clinic_id, "admin")
    listing = admin.get(f"/portal/clinics/{clinic_id}/connections")
    asks = listing.html.find(id="requests").get_text(" ", strip=True)
    assert all(describe_permission(scope) in asks for scope in ASKED)
    decide = listing.click("Review the request")
    for scope in ASKED:
        assert _label(decide, "approve", scope) == f"{describe_permission(scope)} {scope}"
    decide.forms["approve"].submit(status=303)
    change = admin.get(f"/portal/clinics/{clinic_id}/connections/{uuid.UUID(workspace_id)}")
    assert _label(change, "narrow", "patients:read") == f"{describe_permission('patients:read')} patients:read"


def test_the_openapi_document_shows_the_same_words(testapp):
    document = testapp.get("/v1/openapi.json").json
    introduction = document["info"]["description"]
    for scope, text in PERMISSION_DESCRIPTIONS.items():
        assert f"| `{scope}` | {text} |" in introduction
    scopes = document["components"]["schemas"]["ConnectionOut"]["properties"]["scopes"]
    assert sorted(scopes["items"]["enum"]) == sorted(ALL_PERMISSIONS)
    assert all(f"`{scope}`: {text}" in scopes["description"] for scope, text in PERMISSION_DESCRIPTIONS.items())
    read = document["paths"]["/v1/clinics/{clinic_id}/allergies"]["get"]
    assert read["x-permission"] == "allergies:read"
    assert "`allergies:read`: see the allergies on patients' charts." in read["description"]
