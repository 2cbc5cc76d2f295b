"""Connections (decision 0033): an organization asks a clinic from the developer portal; the clinic's admin
sees it with the verified domain and profile, grants some of the permissions with an optional expiry or
declines; narrows and revokes later; the organization's next API call sees each change. Bad input is a
message; clinicians and other clinics never reach these pages."""

import uuid

from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary, with_workspace


def _ask(developer, workspace_id, clinic_id, scopes, status=303):
    page = developer.get(f"/portal/workspaces/{workspace_id}/connection-requests")
    form = page.forms["ask"]
    form["clinic_id"] = str(clinic_id)
    for field in form.fields.get("scopes", []):
        field.checked = field._value in scopes
    return form.submit(status=status)


def _tick(page, form_id, scopes, **fields):
    form = page.forms[form_id]
    for field in form.fields.get("scopes", []):
        field.checked = field._value in scopes
    for name, value in fields.items():
        form[name] = value
    return form


def _call(testapp, key, clinic_id, path, status):
    answer = testapp.get(f"/v1/clinics/{clinic_id}/{path}", headers={"Authorization": f"Bearer {key}"},
                         status=status)
    return answer.json.get("code") if status >= 400 else answer


def test_ask_grant_two_of_three_narrow_and_revoke(app, testapp, world):
    clinic_id = world.clinic()
    developer, workspace_id = with_workspace(app, name="Acme Health")
    workspace = uuid.UUID(workspace_id)
    world.set_workspace(workspace, verified=True, paid=True, terms_accepted=True)
    key = world.key(workspace_id=workspace, mode="live")
    asked = ["allergies:read", "conditions:read", "patients:read"]
    assert "Request sent" in _ask(developer, workspace_id, clinic_id, asked).follow().text
    assert _call(testapp, key, clinic_id, "patients", 404) is not None  # nothing granted yet

    admin, admin_email = staff_browser(app, clinic_id, "admin")
    listing = admin.get(f"/portal/clinics/{clinic_id}/connections")
    assert "Acme Health" in listing.text
    page = listing.click("Review the request")
    assert "Acme Health asks to connect" in page.text and "Verified domain" in page.text
    assert [f._value for f in page.forms["approve"].fields["scopes"] if f.checked] == asked
    none = _tick(page, "approve", set()).submit(status=400)
    assert error_summary(none) == ["Tick at least one permission, or decline the request"]
    past = _tick(page, "approve", {"patients:read"}, expires_on="2001-01-01").submit(status=400)
    assert error_summary(past) == ["Enter an expiry date in the future, or leave it empty"]
    done = _tick(page, "approve", {"patients:read", "allergies:read"},
                 expires_on="2099-12-31").submit(status=303)
    assert "Connection granted" in done.follow().text

    assert _call(testapp, key, clinic_id, "patients", 200).json["data"] == []
    assert _call(testapp, key, clinic_id, "conditions", 403) == "scope_missing"
    change = admin.get(f"/portal/clinics/{clinic_id}/connections/{workspace_id}")
    assert change.forms["narrow"]["expires_on"].value == "2099-12-31"
    _tick(change, "narrow", {"patients:read"}).submit(status=303)
    assert _call(testapp, key, clinic_id, "allergies", 403) == "scope_missing"
    token = change.forms["narrow"]["csrf_token"].value
    wider = admin.post(f"/portal/clinics/{clinic_id}/connections/{workspace_id}/narrow",
                       {"csrf_token": token, "scopes": ["patients:read", "conditions:read"]}, status=400)
    assert "only be narrowed" in error_summary(wider)[0]
    change.forms["revoke"].submit(status=303)
    assert _call(testapp, key, clinic_id, "patients", 404) is not None
    listing = admin.get(f"/portal/clinics/{clinic_id}/connections")
    assert "Revoked" in listing.text and "Approved" in listing.text
    assert listing.text.count(f"by {admin_email}") == 2  # who approved the request, who revoked the link
    activity = admin.get(f"/portal/clinics/{clinic_id}/activity").text
    for sentence in ("Connected Acme Health: ", "Changed the connection of Acme Health to ",
                     "Revoked the connection of Acme Health"):
        assert sentence in activity
    assert "Approved" in developer.get(f"/portal/workspaces/{workspace_id}/connection-requests").text


def test_bad_requests_declines_and_boundaries(app, world):
    clinic_id, other = world.clinic(), world.clinic(name="Other Clinic")
    developer, workspace_id = with_workspace(app)
    bad = _ask(developer, workspace_id, "not-an-id", ["patients:read"], status=400)
    assert error_summary(bad)[0].startswith("Enter the id the clinic gave you")
    none = _ask(developer, workspace_id, clinic_id, [], status=400)
    assert error_summary(none) == ["Choose at least one permission"]
    _, sandbox_id = world.workspace()
    assert "sandbox" in error_summary(_ask(developer, workspace_id, sandbox_id, ["patients:read"],
                                           status=400))[0]
    _ask(developer, workspace_id, clinic_id, ["patients:read"])
    again = _ask(developer, workspace_id, clinic_id, ["patients:read"], status=400)
    assert error_summary(again) == ["A request to this clinic is already waiting for its answer"]

    admin, admin_email = staff_browser(app, clinic_id, "admin")
    page = admin.get(f"/portal/clinics/{clinic_id}/connections").click("Review the request")
    request_path = page.request.path
    token = page.forms["approve"]["csrf_token"].value
    forged = admin.post(f"{request_path}/approve", {"csrf_token": token, "scopes": ["allergies:write"]},
                        status=400)
    assert error_summary(forged) == ["Grant only permissions the organization asked for"]
    stranger, _ = staff_browser(app, other, "admin")
    stranger.get(request_path.replace(str(clinic_id), str(other)), status=404)
    clinician, _ = staff_browser(app, clinic_id, "clinician")
    clinician.get(request_path, status=403)
    clinician.get(f"/portal/clinics/{clinic_id}/connections", status=403)
    page.forms["decline"].submit(status=303)
    # Decided: no longer open to a decision, and the page says so (a tab left open is not a bare 404).
    assert "This request was already declined" in admin.get(request_path).text
    late = page.forms["approve"].submit(status=409)
    assert "nothing was changed" in late.text
    listing = admin.get(f"/portal/clinics/{clinic_id}/connections").text
    assert "Declined" in listing and f"by {admin_email}" in listing
    assert "Declined" in developer.get(f"/portal/workspaces/{workspace_id}/connection-requests").text
