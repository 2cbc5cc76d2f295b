"""The clinic's own key in the console (decision 0033): create (always live, the secret once), list masked,
roll with an overlap, revoke after a confirmation, IP allow-list; admins only; another clinic's key is 404."""

from sqlalchemy import func, select

from clinicrecords.portal.web.models import PortalAuditEntry
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary, secret_of, submit


def _bearer(secret):
    return {"Authorization": f"Bearer {secret}"}


def _create(admin, clinic_id, ip_allow="", status=200, **fields):
    """The "Key created" page (the POST redirects to it), or with another `status` the POST's own answer."""
    page = admin.get(f"/portal/clinics/{clinic_id}/keys")
    if status == 200:
        return submit(page, "new-key", ip_allow=ip_allow, status=303, **fields).follow()
    return submit(page, "new-key", ip_allow=ip_allow, status=status, **fields)


def test_create_list_roll_and_revoke_the_clinics_own_key(app, world, testapp, engine):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    page = _create(admin, clinic_id)
    secret = secret_of(page)
    assert secret.startswith("ehr_live_") and page.headers["Cache-Control"] == "no-store"
    me = testapp.get("/v1/me", headers=_bearer(secret)).json["data"]
    assert me["mode"] == "live" and me["owner"]["id"] == str(clinic_id)
    key_id = secret.split("_")[2]
    listing = admin.get(f"/portal/clinics/{clinic_id}/keys")
    assert f"ehr_live_{key_id[:4]}" in listing.text and secret.split("_")[3] not in listing.text
    roll_page = admin.get(f"/portal/clinics/{clinic_id}/keys/{key_id}/roll")
    rolled = submit(roll_page, "roll", overlap="now", status=303).follow()
    new_secret = secret_of(rolled)
    assert new_secret != secret and "has stopped working" in rolled.text
    testapp.get("/v1/me", headers=_bearer(secret), status=401)
    assert testapp.get("/v1/me", headers=_bearer(new_secret)).status_int == 200
    new_id = new_secret.split("_")[2]
    confirm = admin.get(f"/portal/clinics/{clinic_id}/keys/{new_id}/revoke")
    assert f"Revoke key ehr_live_{new_id[:4]}" in confirm.text
    done = submit(confirm, "revoke", status=303).follow()
    assert f"Key ehr_live_{new_id[:4]}************ revoked" in done.html.find(id="notice").get_text()
    testapp.get("/v1/me", headers=_bearer(new_secret), status=401)
    admin.get(f"/portal/clinics/{clinic_id}/keys/{new_id}/revoke", status=404)
    with engine.connect() as connection:
        rows = connection.execute(select(PortalAuditEntry.action, PortalAuditEntry.target,
                                         PortalAuditEntry.details)
                                  .where(PortalAuditEntry.clinic_id == clinic_id,
                                         PortalAuditEntry.action.like("key.%"))).all()
    assert sorted(action for action, _, _ in rows) == ["key.created", "key.revoked", "key.rolled"]
    assert secret.split("_")[3] not in repr(rows) and new_secret.split("_")[3] not in repr(rows)


def test_ip_allow_list_and_bad_input(app, world, testapp):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    bad = _create(admin, clinic_id, ip_allow="10.0.0.0/8\nnot-an-address", status=400)
    assert error_summary(bad) == ["“not-an-address” is not an IP address or CIDR range, like 203.0.113.0/24"]
    assert "not-an-address" in bad.forms["new-key"]["ip_allow"].value
    secret = secret_of(_create(admin, clinic_id, ip_allow="192.0.2.7"))
    key_id = secret.split("_")[2]
    testapp.get("/v1/me", headers=_bearer(secret), status=403)  # the test client is 127.0.0.1
    page = admin.get(f"/portal/clinics/{clinic_id}/keys/{key_id}/ip-allow")
    assert page.forms["ip-allow"]["ip_allow"].value == "192.0.2.7/32"
    refused = submit(page, "ip-allow", ip_allow="300.1.1.1", status=400)
    assert error_summary(refused)
    saved = submit(refused, "ip-allow", ip_allow="127.0.0.1", status=303).follow()
    assert "IP allow-list saved" in saved.text and "127.0.0.1/32" in saved.text
    assert testapp.get("/v1/me", headers=_bearer(secret)).status_int == 200
    form = admin.get(f"/portal/clinics/{clinic_id}/keys/{key_id}/roll").forms["roll"]
    roll = admin.post(form.action, {"csrf_token": form["csrf_token"].value, "overlap": "forever"}, status=400)
    assert error_summary(roll) == ["Choose when the old key stops working"]


def test_a_clinician_never_sees_keys_and_another_clinics_key_is_404(app, world):
    mine, other = world.clinic(), world.clinic(name="Other Clinic")
    admin, _ = staff_browser(app, mine, "admin")
    other_admin, _ = staff_browser(app, other, "admin")
    key_id = secret_of(_create(other_admin, other)).split("_")[2]
    for path in ("roll", "revoke", "ip-allow"):
        admin.get(f"/portal/clinics/{mine}/keys/{key_id}/{path}", status=404)
    clinician, _ = staff_browser(app, mine, "clinician")
    assert "API keys" not in clinician.get(f"/portal/clinics/{mine}").text
    clinician.get(f"/portal/clinics/{mine}/keys", status=403)
    token = clinician.get(f"/portal/clinics/{mine}").forms["logout"]["csrf_token"].value
    clinician.post(f"/portal/clinics/{mine}/keys/new", params={"csrf_token": token}, status=403)


def test_the_clinics_own_key_is_rolled_once_with_no_gate(app, world, engine):
    """Decision 0044: the clinic's keys are always live and not gated, but rolled once too."""
    from clinicrecords.access.models import ApiKey

    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    old = secret_of(_create(admin, clinic_id)).split("_")[2]
    form = admin.get(f"/portal/clinics/{clinic_id}/keys/{old}/roll").forms["roll"]
    form["overlap"] = "24h"
    new = secret_of(form.submit(status=303).follow()).split("_")[2]
    again = admin.post(f"/portal/clinics/{clinic_id}/keys/{old}/roll",
                       {"csrf_token": form["csrf_token"].value, "overlap": "7d"}, status=400)
    assert error_summary(again) == [
        f"This key was rolled already: roll the key that replaced it, ehr_live_{new[:4]}************, instead"]
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(ApiKey).where(ApiKey.clinic_id == clinic_id)) == 2
    listing = admin.get(f"/portal/clinics/{clinic_id}/keys").html.find(id="keys")
    assert [a["href"].split("/")[-2] for a in listing.find_all("a", string="Roll")] == [new]
