"""patient_import.finished: addressed to the clinic whose key imported, recorded while it has a webhook."""

import pytest

from tests.common.clinical import headers


def _row(n, **overrides):
    return {"given_name": f"Given{n}", "family_name": f"Family{n}", "birth_date": "1990-01-01", **overrides}


@pytest.fixture
def recording_clinic(world):
    clinic_id = world.clinic()
    world.webhook(clinic_id=clinic_id)
    return clinic_id, world.key(clinic_id=clinic_id)


def _feed(testapp, clinic_id, key):
    return testapp.get(f"/v1/clinics/{clinic_id}/events", headers=headers(key)).json["events"]


@pytest.mark.parametrize("rows, status", [
    ([_row(1), _row(2)], "succeeded"),
    ([_row(1), _row(2, birth_date="not a date")], "needs_review"),
])
def test_a_finished_import_is_announced(testapp, recording_clinic, rows, status):
    clinic_id, key = recording_clinic
    job = testapp.post_json(f"/v1/clinics/{clinic_id}/patient-imports", {"input_format": "json_array", "data": rows},
                            headers=headers(key)).json["data"]
    assert job["status"] == status
    [event] = [e for e in _feed(testapp, clinic_id, key) if e["type"] == "patient_import.finished"]
    assert event["subject_id"] == job["id"]
    assert event["data"] == {"id": job["id"], "status": status}


def test_an_organization_never_sees_the_clinic_s_import_events(world, testapp, recording_clinic):
    clinic_id, key = recording_clinic
    testapp.post_json(f"/v1/clinics/{clinic_id}/patient-imports", {"input_format": "json_array", "data": [_row(1)]},
                      headers=headers(key))
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, clinic_id)
    organization_key = world.key(workspace_id=workspace_id, mode="live")
    assert [e["type"] for e in _feed(testapp, clinic_id, organization_key)] == []
