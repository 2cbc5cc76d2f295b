"""Staff commands: `calendar hours` and `calendar block`, and what they do to booking."""

import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from clinicrecords.providers.schemas import SANDBOX_PROVIDER_IDS
from clinicrecords.scheduling.models import CalendarBlock, WorkingHours
from clinicrecords.scheduling.schemas import SANDBOX_CALENDAR_PROVIDER_IDS
from tests.common.clinical import admin, clinic_db, idem, sandbox

MONDAY_9 = "2099-06-01T09:00:00Z"
PATIENT = str(SANDBOX_PATIENT_IDS[0])
UNSCHEDULED = SANDBOX_PROVIDER_IDS[2]  # the sandbox clinician without a calendar


@pytest.fixture
def box(world):
    clinic_id, key = sandbox(world)
    return clinic_id, key, f"/v1/clinics/{clinic_id}/appointments"


def test_hours_make_a_clinician_bookable_and_off_removes_them(testapp, box):
    clinic_id, key, url = box
    body = {"patient_id": PATIENT, "provider_id": str(UNSCHEDULED), "starts_at": "2099-06-06T10:00:00Z"}
    assert testapp.post_json(url, body, headers=idem(key), status=409).json["code"] == "out_of_office"
    status, result, err = admin("calendar", "hours", "--clinic", clinic_id, UNSCHEDULED, "--weekdays", "sat,sun",
                                "--start", "10:00", "--end", "12:30")
    assert status == 0, err
    assert result == {"provider_id": str(UNSCHEDULED), "working_hours": [
        {"weekday": "sat", "start": "10:00", "end": "12:30"}, {"weekday": "sun", "start": "10:00", "end": "12:30"}]}
    testapp.post_json(url, body, headers=idem(key), status=201)
    # The last slot ends at the end of the hours.
    testapp.post_json(url, {**body, "starts_at": "2099-06-07T12:00:00Z"}, headers=idem(key), status=201)
    status, result, _ = admin("calendar", "hours", "--clinic", clinic_id, UNSCHEDULED, "--weekdays", "sun", "--off")
    assert result["working_hours"] == [{"weekday": "sat", "start": "10:00", "end": "12:30"}]
    refused = testapp.post_json(url, {**body, "starts_at": "2099-06-07T10:30:00Z"}, headers=idem(key), status=409)
    assert refused.json["code"] == "out_of_office"


def test_a_block_makes_the_clinician_out_of_office(testapp, box):
    clinic_id, key, url = box
    provider = SANDBOX_CALENDAR_PROVIDER_IDS[1]
    status, result, err = admin("calendar", "block", "--clinic", clinic_id, provider, "--from",
                                "2099-06-01T08:45:00Z", "--to", "2099-06-01T09:15:00+00:00", "--reason", "Training")
    assert status == 0, err
    assert (result["provider_id"], result["from"], result["to"], result["reason"]) == (
        str(provider), "2099-06-01T08:45:00+00:00", "2099-06-01T09:15:00+00:00", "Training")
    body = {"patient_id": PATIENT, "provider_id": str(provider), "starts_at": MONDAY_9}
    assert testapp.post_json(url, body, headers=idem(key), status=409).json["code"] == "out_of_office"
    # The block ends at 09:15: the 09:30 slot is free.
    testapp.post_json(url, {**body, "starts_at": "2099-06-01T09:30:00Z"}, headers=idem(key), status=201)


@pytest.mark.parametrize("argv", [
    ["hours", "{provider}", "--weekdays", "mon", "--start", "17:00", "--end", "09:00"],
    ["hours", "{provider}", "--weekdays", "mon", "--start", "09:00"],
    ["hours", "{provider}", "--weekdays", "mon", "--off", "--start", "09:00"],
    ["hours", "{provider}", "--weekdays", "funday", "--start", "09:00", "--end", "10:00"],
    ["hours", "{provider}", "--weekdays", "fri-mon", "--start", "09:00", "--end", "10:00"],
    ["hours", "{provider}", "--weekdays", "mon", "--start", "9am", "--end", "10:00"],
    ["hours", str(uuid.uuid4()), "--weekdays", "mon", "--start", "09:00", "--end", "10:00"],
    ["block", "{provider}", "--from", "2099-06-01T10:00:00Z", "--to", "2099-06-01T09:00:00Z"],
    ["block", "{provider}", "--from", "tomorrow", "--to", "2099-06-01T09:00:00Z"],
    ["block", "{provider}", "--from", "2099-06-01T08:00:00Z", "--to", "2099-06-01T09:00:00Z", "--reason", " "],
    ["block", str(uuid.uuid4()), "--from", "2099-06-01T08:00:00Z", "--to", "2099-06-01T09:00:00Z"],
])
def test_bad_input_is_refused_and_changes_nothing(world, argv):
    clinic_id, _ = sandbox(world)
    provider = str(SANDBOX_CALENDAR_PROVIDER_IDS[0])
    argv = [arg.format(provider=provider) for arg in argv]
    with clinic_db(world, clinic_id) as db:
        before = (db.scalar(select(func.count()).select_from(WorkingHours)),
                  db.scalar(select(func.count()).select_from(CalendarBlock)))
    status, result, err = admin("calendar", argv[0], "--clinic", clinic_id, *argv[1:])
    assert status == 2 and result is None  # argparse writes its own refusals to the process stderr
    with clinic_db(world, clinic_id) as db:
        after = (db.scalar(select(func.count()).select_from(WorkingHours)),
                 db.scalar(select(func.count()).select_from(CalendarBlock)))
    assert after == before


def test_an_unknown_clinic_is_refused():
    status, _, err = admin("calendar", "block", "--clinic", uuid.uuid4(), uuid.uuid4(), "--from",
                           "2099-06-01T08:00:00Z", "--to", "2099-06-01T09:00:00Z")
    assert status == 2 and "no clinic" in err
