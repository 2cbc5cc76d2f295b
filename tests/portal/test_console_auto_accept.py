"""Automatic acceptance in the console (decision 0033): per organization or key, per kind, off by default;
saving switches only the changed kinds; the volume pause is shown and an admin resumes it; admins only.
(That a new connection and a rolled key start with it off is StaffReview's rule, tested in tests/review.)"""

import webtest
from sqlalchemy import select

from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import ok
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary
from tests.review.conftest import Clinic


def _page(client, clinic):
    return client.get(f"/portal/clinics/{clinic.id}/auto-accept")


def _save(page, ref, kinds, status=303):
    form = page.forms[f"save-{ref}"]
    for field in form.fields.get("kinds", []):
        field.checked = field._value in kinds
    return form.submit(status=status)


def test_an_organization_and_a_key_switched_per_kind(app, testapp, world, engine):
    clinic = Clinic(testapp, world, world.connected())
    admin, _ = staff_browser(app, clinic.id, "admin")
    organization = f"workspace:{clinic.connected.workspace_id}"
    key_ref = f"key:{clinic.connected.key.split('_')[2]}"
    page = _page(admin, clinic)
    assert "Test Workspace" in page.text
    assert f"save-{organization}" in page.forms and f"save-{key_ref}" in page.forms
    assert not any(field.checked for field in page.forms[f"save-{organization}"].fields["kinds"])
    assert clinic.allergy("Peanut").json["data"]["review_status"] == "pending"  # off by default
    assert "Automatic acceptance saved" in _save(page, organization, {"allergy"}).follow().text
    assert clinic.allergy("Latex").json["data"]["review_status"] == "confirmed"
    condition = {"patient_id": clinic.patient_id, "icd10_code": "I10"}
    assert clinic.send("conditions", condition).json["data"]["review_status"] == "pending"
    _save(_page(admin, clinic), organization, set())
    assert clinic.allergy("Egg").json["data"]["review_status"] == "pending"
    _save(_page(admin, clinic), key_ref, {"condition"})
    assert clinic.send("conditions", {**condition,
                                      "icd10_code": "E11"}).json["data"]["review_status"] == "confirmed"
    shown = {(s["sender_type"], s["kind"]): s["enabled"] for s in ok("auto-accept", "show", "--clinic",
                                                                      clinic.id)["settings"]}
    assert shown == {("workspace", "allergy"): False, ("key", "condition"): True}
    with engine.connect() as connection:
        targets = connection.execute(select(PortalAuditEntry.target).where(
            PortalAuditEntry.clinic_id == clinic.id, PortalAuditEntry.action == "auto_accept.changed")
        ).scalars().all()
    assert sorted(targets) == sorted([organization, organization, key_ref])


def test_the_volume_pause_is_shown_and_resumed(make_app, world):
    app = make_app(**{"review.auto_accept_pause_threshold": "2",
                      "review.auto_accept_pause_window_minutes": "60"})
    clinic = Clinic(webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"}), world,
                    world.connected())
    admin, _ = staff_browser(app, clinic.id, "admin")
    organization = f"workspace:{clinic.connected.workspace_id}"
    _save(_page(admin, clinic), organization, {"allergy"})
    statuses = [clinic.allergy(name).json["data"]["review_status"] for name in ("Peanut", "Latex", "Egg")]
    assert statuses == ["confirmed", "confirmed", "pending"]
    page = _page(admin, clinic)
    assert "Paused" in page.text and "after 2 items in 60 minutes (the limit is 2)" in page.text
    answer = page.forms["resume-1-allergy"].submit(status=303).follow()
    assert "Automatic acceptance resumed" in answer.text and "Paused" not in answer.text
    assert ok("auto-accept", "show", "--clinic", clinic.id)["pauses"][0]["resumed_at"]
    token = page.forms["resume-1-allergy"]["csrf_token"].value
    again = admin.post(f"/portal/clinics/{clinic.id}/auto-accept/resume",
                       {"csrf_token": token, "sender": organization, "kinds": "allergy"}, status=400)
    assert error_summary(again) == ["Automatic acceptance of this kind is not paused for this sender"]


def test_bad_senders_and_roles(app, testapp, world):
    clinic = Clinic(testapp, world, world.connected())
    other = world.connected()
    admin, _ = staff_browser(app, clinic.id, "admin")
    page = _page(admin, clinic)
    token = page.forms["logout"]["csrf_token"].value
    for sender in (f"workspace:{other.workspace_id}", f"key:{other.key.split('_')[2]}", "junk"):
        answer = admin.post(f"/portal/clinics/{clinic.id}/auto-accept/save",
                            {"csrf_token": token, "sender": sender, "kinds": "allergy"}, status=400)
        assert error_summary(answer) == ["This sender no longer reaches the clinic: reload the page"]
    answer = admin.post(f"/portal/clinics/{clinic.id}/auto-accept/save", {
        "csrf_token": token, "sender": f"workspace:{clinic.connected.workspace_id}", "kinds": "surgery"},
        status=400)
    assert error_summary(answer) == ["Choose among the kinds listed"]
    assert ok("auto-accept", "show", "--clinic", clinic.id)["settings"] == []
    clinician, _ = staff_browser(app, clinic.id, "clinician")
    clinician.get(f"/portal/clinics/{clinic.id}/auto-accept", status=403)


def test_settings_of_an_earlier_connection_show_off_and_can_be_switched_on_again(app, testapp, world):
    """Revoked and approved again, the organization is a new connection: what was on for the earlier one shows
    off (it applies to nothing), and ticking it switches it on for this one."""
    clinic = Clinic(testapp, world, world.connected())
    admin, _ = staff_browser(app, clinic.id, "admin")
    organization = f"workspace:{clinic.connected.workspace_id}"
    key_ref = f"key:{clinic.connected.key.split('_')[2]}"
    _save(_page(admin, clinic), organization, {"allergy"})
    _save(_page(admin, clinic), key_ref, {"condition"})
    world.revoke_connection(clinic.connected.workspace_id, clinic.id)
    world.grant(clinic.connected.workspace_id, clinic.id)
    page = _page(admin, clinic)
    for ref in (organization, key_ref):
        assert not any(field.checked for field in page.forms[f"save-{ref}"].fields["kinds"]), ref
    assert clinic.allergy("Peanut").json["data"]["review_status"] == "pending"
    _save(page, organization, {"allergy"})
    assert clinic.allergy("Latex").json["data"]["review_status"] == "confirmed"
    shown = {(s["sender_type"], s["kind"]): s["for_current_connection"]
             for s in ok("auto-accept", "show", "--clinic", clinic.id)["settings"]}
    assert shown == {("workspace", "allergy"): True, ("key", "condition"): False}
