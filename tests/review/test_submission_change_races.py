"""A sender's change and a clinician's decision on one pending submission, on two real connections: whichever
takes the submission's row first wins, and the other acts on what it left. A decision committing first makes
the change 409 submission_not_pending; a change committing first is what the clinician's decision puts on the
chart."""

import threading
import time

import pytest
import webtest
from sqlalchemy import text

from clinicrecords.clinics.services import open_clinic
from clinicrecords.db.tenancy import schema_name
from clinicrecords.review.decisions import locked_submission
from clinicrecords.review.services import StaffReview
from tests.review.conftest import Clinic


def _waiting_on_a_row_lock(engine, clinic_id):
    """Whether some backend waits for a row of the clinic's submissions (a transaction or tuple lock). The
    statement names no schema (its transaction's search_path does): the waiter is found by the lock it holds on
    the clinic's table."""
    with engine.connect() as watcher:
        return watcher.execute(text(
            "SELECT count(*) FROM pg_stat_activity a WHERE a.wait_event_type = 'Lock' AND a.query ILIKE "
            "'%submissions%' AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.granted "
            "AND l.relation = to_regclass(:table))"),
            {"table": f'"{schema_name(clinic_id)}".submissions'}).scalar() > 0


def _until_waiting(engine, clinic_id):
    for _ in range(200):
        if _waiting_on_a_row_lock(engine, clinic_id):
            return
        time.sleep(0.05)
    pytest.fail("nothing waited for the submission's row")


@pytest.fixture
def clinic(app, world):
    return Clinic(webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"}), world, world.connected())


@pytest.mark.commits  # a clinician's decision held open on a connection of its own while a thread sends the PATCH
def test_a_decision_committing_first_leaves_the_waiting_change_409(app, engine, clinic):
    sent = clinic.allergy("Peanut").json["data"]
    results = {}

    def change():
        results["change"] = clinic.testapp.patch_json(
            clinic.url(f"submissions/{sent['submission_id']}"), {"criticality": "low"},
            headers=clinic.headers, expect_errors=True)

    staff = app.registry["db.session_factory"]()
    try:
        decided = StaffReview(staff, app.registry, open_clinic(staff, clinic.id)).accept(sent["submission_id"])
        assert decided.review_status == "confirmed"  # written, not yet committed: the row is the clinician's
        thread = threading.Thread(target=change)
        thread.start()
        _until_waiting(engine, clinic.id)
        staff.commit()
    finally:
        staff.close()
    thread.join(30)
    assert results["change"].status_int == 409
    assert results["change"].json["code"] == "submission_not_pending"
    read = clinic.testapp.get(clinic.url(f"submissions/{sent['submission_id']}"), headers=clinic.headers).json
    assert read["data"]["review_status"] == "confirmed" and read["data"]["payload"] == sent["payload"]


@pytest.mark.commits  # a change held open on a connection of its own while a thread makes the clinician's decision
def test_a_change_committing_first_is_what_the_decision_puts_on_the_chart(app, engine, world, clinic):
    sent = clinic.allergy("Peanut").json["data"]
    results = {}

    def accept():
        with world.request() as request:
            review = StaffReview(request.db, app.registry, open_clinic(request.db, clinic.id))
            results["decided"] = review.accept(sent["submission_id"]).review_status

    sender = app.registry["db.session_factory"]()
    try:
        open_clinic(sender, clinic.id)
        # What the sender's PATCH does in its transaction: the row, locked, then changed.
        pending = locked_submission(sender, sent["submission_id"])
        pending.payload = {**pending.payload, "criticality": "low"}
        sender.flush()
        thread = threading.Thread(target=accept)
        thread.start()
        _until_waiting(engine, clinic.id)
        sender.commit()
    finally:
        sender.close()
    thread.join(30)
    assert results["decided"] == "confirmed"
    allergy = clinic.testapp.get(clinic.url(f"allergies/{sent['target_id']}"), headers=clinic.headers).json["data"]
    assert allergy["criticality"] == "low"
