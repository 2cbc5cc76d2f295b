"""The review queue in the clinic console (decision 0033): pending submissions newest first beside the
chart, filters, accept, decline with a reason, the no-known-allergies rule as a message, automatically
accepted items marked reviewed; decisions through the review context's service (same events, the staff
member recorded); another clinic's submission answers 404; admins and developers never decide."""

import uuid

import pytest
from sqlalchemy import select

from clinicrecords.clinics.services import open_clinic
from clinicrecords.events.models import Event
from clinicrecords.portal.web.models import PortalAuditEntry
from clinicrecords.review.models import Submission
from tests.common.cli import ok
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary, submit, with_workspace
from tests.review.conftest import Clinic


@pytest.fixture
def clinic(testapp, world):
    connected = world.connected()
    world.webhook(workspace_id=connected.workspace_id, mode="live")  # so decisions are recorded as events
    return Clinic(testapp, world, connected)


@pytest.fixture
def clinician(app, clinic):
    client, _ = staff_browser(app, clinic.id, "clinician")
    return client


def _queue(client, clinic, **params):
    return client.get(f"/portal/clinics/{clinic.id}/queue", params=params)


def _entries(page):
    return [section["id"].removeprefix("submission-") for section in page.html.find_all(class_="queue-entry")]


def _submission(world, clinic_id, submission_id):
    with world.request() as request:
        open_clinic(request.db, clinic_id)
        row = request.db.get(Submission, uuid.UUID(submission_id))
        return row.review_status, row.decided_by_staff_id, row.decision_reason


def _events(world, clinic_id, submission_id):
    with world.request() as request:
        open_clinic(request.db, clinic_id)
        statement = select(Event.type).where(Event.subject_id == uuid.UUID(submission_id))
        return request.db.scalars(statement).all()


def test_pending_submissions_newest_first_beside_the_chart(clinic, clinician, testapp):
    first = clinic.allergy("Peanut", criticality="high").json["data"]
    ok("submission", "accept", "--clinic", clinic.id, first["submission_id"])
    duplicate = clinic.allergy("PEANUT").json["data"]
    condition = clinic.send("conditions", {"patient_id": clinic.patient_id, "icd10_code": "I10"}).json["data"]
    change = clinic.send(f"allergies/{first['target_id']}", {"criticality": "low"},
                         method="patch").json["data"]
    page = _queue(clinician, clinic)
    assert _entries(page) == [change["submission_id"], condition["submission_id"], duplicate["submission_id"]]
    sections = {s["id"].removeprefix("submission-"): s for s in page.html.find_all(class_="queue-entry")}
    assert "Ada Quill" in sections[condition["submission_id"]].get_text()
    assert "Test Workspace" in sections[condition["submission_id"]].get_text()
    duplicate_text = sections[duplicate["submission_id"]].get_text()
    assert "likely duplicate" in duplicate_text and "Substance: Peanut" in duplicate_text
    rows = [[cell.get_text() for cell in row.find_all("td")]
            for row in sections[change["submission_id"]].find_all("tr", class_="changed")]
    assert rows == [["Criticality", "high", "low"]]
    assert "likely duplicate" not in sections[condition["submission_id"]].get_text()
    assert _entries(_queue(clinician, clinic, kind="condition")) == [condition["submission_id"]]
    assert _entries(_queue(clinician, clinic, patient="quill")) == _entries(page)
    assert _entries(_queue(clinician, clinic, patient="Nobody")) == []
    assert _entries(_queue(clinician, clinic, patient=clinic.patient_id)) == _entries(page)
    sender = str(clinic.connected.workspace_id)
    assert _entries(_queue(clinician, clinic, sender=sender)) == _entries(page)
    assert _entries(_queue(clinician, clinic, sender=str(uuid.uuid4()))) == []
    assert "Nothing waits for review with these filters" in _queue(clinician, clinic, sender="junk").text


def test_a_clinician_accepts_and_the_sender_reads_it_confirmed(app, clinic, clinician, testapp, world,
                                                               engine):
    sent = clinic.allergy("Peanut").json["data"]
    page = _queue(clinician, clinic)
    answer = submit(page, f"accept-{sent['submission_id']}", status=303)
    done = answer.follow()
    assert "Accepted: the submission for Ada Quill" in done.text and _entries(done) == []
    status, staff_id, _ = _submission(world, clinic.id, sent["submission_id"])
    assert status == "confirmed" and staff_id is not None
    read = testapp.get(clinic.url(f"submissions/{sent['submission_id']}"),
                       headers=clinic.headers).json["data"]
    assert read["review_status"] == "confirmed" and read["result_record_id"] == sent["target_id"]
    assert _events(world, clinic.id, sent["submission_id"]) == ["submission.decided"]
    with engine.connect() as connection:
        audit = connection.execute(select(PortalAuditEntry.action, PortalAuditEntry.account_id).where(
            PortalAuditEntry.target == sent["submission_id"])).all()
    assert audit == [("submission.accepted", staff_id)]
    decided = clinician.get(f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}")  # decided: not in the queue
    assert "already accepted" in decided.text and "accept" not in decided.forms



@pytest.mark.parametrize("opened", ["queue", "submission"])
def test_a_submission_its_sender_changed_after_the_page_was_opened_is_not_accepted_unread(
        clinic, clinician, testapp, opened):
    """The sender may change a pending submission (PATCH): an Accept sent from a page showing the earlier
    content is refused with the page shown again, now with the content as changed; accepting from there
    puts that content on the chart."""
    sent = clinic.allergy("Peanut", criticality="high").json["data"]
    url = f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}"
    page, form = (_queue(clinician, clinic), f"accept-{sent['submission_id']}") if opened == "queue" else \
        (clinician.get(url), "accept")
    testapp.patch_json(clinic.url(f"submissions/{sent['submission_id']}"), {"criticality": "low"},
                       headers=clinic.headers)
    refused = submit(page, form, status=400)
    assert error_summary(refused) == ["Its sender changed this submission after you opened it: read it again "
                                      "below, then decide"]
    assert _submission(clinic.world, clinic.id, sent["submission_id"])[0] == "pending"
    assert "low" in refused.html.find(class_="queue-entry").text
    submit(refused, "accept", status=303)
    allergy = testapp.get(clinic.url(f"allergies/{sent['target_id']}"), headers=clinic.headers).json["data"]
    assert allergy["criticality"] == "low"


def test_decline_needs_a_reason_and_records_it(clinic, clinician, testapp, world):
    sent = clinic.allergy("Peanut").json["data"]
    page = clinician.get(f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}")
    refused = submit(page, "decline", reason="   ", status=400)
    assert error_summary(refused) == ["Enter the reason for declining: the sender reads it"]
    assert _submission(world, clinic.id, sent["submission_id"])[0] == "pending"
    long = submit(refused, "decline", reason="x" * 2001, status=400)
    assert error_summary(long) == ["Enter a reason of at most 2000 characters"]
    assert long.forms["decline"]["reason"].value == "x" * 2001
    answer = submit(long, "decline", reason="Not confirmed by the patient", status=303)
    assert "Declined: the submission for Ada Quill" in answer.follow().text
    status, staff_id, reason = _submission(world, clinic.id, sent["submission_id"])
    assert (status, reason) == ("rejected", "Not confirmed by the patient") and staff_id is not None
    read = testapp.get(clinic.url(f"submissions/{sent['submission_id']}"),
                       headers=clinic.headers).json["data"]
    assert read["review_status"] == "rejected" and read["decision_reason"] == "Not confirmed by the patient"


def test_no_known_allergies_while_an_allergy_is_active_is_a_clear_message(clinic, clinician, world):
    allergy = clinic.allergy("Peanut").json["data"]
    ok("submission", "accept", "--clinic", clinic.id, allergy["submission_id"])
    statement = clinic.send("allergies", {"patient_id": clinic.patient_id,
                                          "no_known_allergies": True}).json["data"]
    page = clinician.get(f"/portal/clinics/{clinic.id}/queue/{statement['submission_id']}")
    assert "No known allergies" in page.text
    answer = submit(page, "accept", status=400)
    assert error_summary(answer) and "active allergy on the chart" in error_summary(answer)[0]
    assert error_summary(answer)[0][0].isupper()
    assert _submission(world, clinic.id, statement["submission_id"])[0] == "pending"


def test_an_automatically_accepted_item_is_marked_reviewed(clinic, clinician, testapp):
    ok("auto-accept", "set", "--clinic", clinic.id, "--workspace", clinic.connected.workspace_id,
       "--kinds", "allergy", "--on")
    sent = clinic.allergy("Peanut").json["data"]
    assert sent["review_status"] == "confirmed"
    queue = _queue(clinician, clinic)
    assert "1 automatically accepted item to review" in queue.text
    page = clinician.get(f"/portal/clinics/{clinic.id}/queue/reviews")
    answer = submit(page, f"review-{sent['target_id']}", status=303)
    assert "Marked reviewed" in answer.follow().text
    item = testapp.get(clinic.url(f"allergies/{sent['target_id']}"), headers=clinic.headers).json["data"]
    assert item["verification_status"] == "confirmed" and item["reviewed_by_staff_id"]
    token = page.forms["logout"]["csrf_token"].value
    again = clinician.post(f"/portal/clinics/{clinic.id}/queue/reviews", params={
        "csrf_token": token, "kind": "allergy", "item_id": sent["target_id"]}, status=400)
    assert "already reviewed" in error_summary(again)[0]
    bad = clinician.post(f"/portal/clinics/{clinic.id}/queue/reviews", params={
        "csrf_token": token, "kind": "allergy", "item_id": "junk"}, status=400)
    assert error_summary(bad) == ["Choose an item to mark reviewed"]


def test_another_clinics_submission_admins_and_developers_never_decide(app, clinic, clinician, world,
                                                                       testapp):
    sent = clinic.allergy("Peanut").json["data"]
    other = world.clinic(name="Other Clinic")
    stranger, _ = staff_browser(app, other, "clinician")
    stranger.get(f"/portal/clinics/{other}/queue/{sent['submission_id']}", status=404)
    stranger.get(f"/portal/clinics/{clinic.id}/queue", status=404)
    admin, _ = staff_browser(app, clinic.id, "admin")
    assert "Your role on the staff of this clinic" in admin.get(f"/portal/clinics/{clinic.id}/queue",
                                                               status=403).text
    token = admin.get(f"/portal/clinics/{clinic.id}").forms["logout"]["csrf_token"].value
    admin.post(f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}/accept",
               params={"csrf_token": token},
               status=403)
    developer, _ = with_workspace(app)
    developer.get(f"/portal/clinics/{clinic.id}/queue", status=404)
    forged = clinician.post(f"/portal/clinics/{clinic.id}/queue/{sent['submission_id']}/accept", status=403)
    assert "Nothing was changed" in forged.text
    assert _submission(world, clinic.id, sent["submission_id"])[0] == "pending"


def test_the_banner_after_a_decision_comes_from_the_session_never_from_the_address(clinic, clinician):
    forged = _queue(clinician, clinic, decided="accepted", patient_name="Ada Quill. Call 555-0100 to confirm")
    assert "555-0100" not in forged.text and "Accepted:" not in forged.text
    sent = clinic.allergy("Peanut").json["data"]
    answer = submit(_queue(clinician, clinic), f"accept-{sent['submission_id']}", status=303)
    assert "patient_name" not in answer.location and "Quill" not in answer.location
    done = answer.follow()
    assert "Accepted: the submission for Ada Quill" in done.html.find(id="decided-banner").get_text()
    assert clinician.get(answer.location).html.find(id="decided-banner") is None  # shown once
