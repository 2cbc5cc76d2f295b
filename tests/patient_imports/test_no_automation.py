"""Spec, patient import rule 4: an import contacts no patient and starts no automation. Through the real stack:
a clinic with a webhook receiver of its own and a connected organization with one; every task queued during
the import (Huey's enqueue signal), every event recorded and every request either receiver got. The only
work is the import's own: its writer task, its `patient_import.finished` event and that event's delivery to
the clinic's own endpoint."""

import json

import pytest
from huey import signals

from clinicrecords.tasks import huey
from tests.common.clinical import headers
from tests.events.support import Receiver

ROWS = [
    {"given_name": "Maya", "family_name": "Okafor", "birth_date": "1988-04-12", "phone": "+1 555 0100",
     "email": "maya.okafor@example.org", "address": {"line": ["12 Harbour Road"], "city": "Springfield"}},
    {"given_name": "Ravi", "family_name": "Shah", "birth_date": "1975-09-30", "phone": "+1 555 0101",
     "email": "ravi.shah@example.org"},
]


@pytest.fixture
def queued_tasks():
    """The name of every task enqueued while the test runs (immediate mode runs each as it is enqueued)."""
    names = []

    def record(signal, task, *args, **kwargs):
        names.append(task.name)

    huey.signal(signals.SIGNAL_ENQUEUED)(record)
    yield names
    huey.disconnect_signal(record, signals.SIGNAL_ENQUEUED)


def _feed(testapp, clinic_id, key):
    return testapp.get(f"/v1/clinics/{clinic_id}/events", {"limit": 200}, headers=headers(key)).json["events"]


@pytest.mark.parametrize("rows, status", [(ROWS, "succeeded"), (ROWS + [{"given_name": "No dates"}],
                                                                 "needs_review")])
def test_an_import_starts_no_automation_and_contacts_no_patient(world, testapp, queued_tasks, rows, status):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, clinic_id)
    with Receiver() as clinic_receiver, Receiver() as organization_receiver:
        world.webhook(clinic_id=clinic_id, url=clinic_receiver.url)
        world.webhook(workspace_id=workspace_id, mode="live", url=organization_receiver.url)
        job = testapp.post_json(f"/v1/clinics/{clinic_id}/patient-imports",
                                {"input_format": "json_array", "data": rows}, headers=headers(key)).json["data"]
        assert job["status"] == status
        events = _feed(testapp, clinic_id, key)
        assert [(e["type"], e["data"]) for e in events] == [("patient_import.finished",
                                                             {"id": job["id"], "status": status})]
        writer = ["write_patient_import"] if status == "succeeded" else []
        assert queued_tasks == writer + ["deliver"]  # huey names a task by its function
        # One delivery, of the import's own event, to the clinic's own endpoint; nothing to the organization.
        [(_, _, body)] = clinic_receiver.requests
        assert json.loads(body) == events[0]
        assert organization_receiver.requests == []
    # No patient's contact details left the service (nothing else was sent anywhere).
    assert not any(row.get("email", "?") in body.decode() or row.get("phone", "?") in body.decode()
                   for row in rows)
