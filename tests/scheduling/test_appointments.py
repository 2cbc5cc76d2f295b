import datetime
import threading
import uuid

import pytest
import webtest
from sqlalchemy import func, select

from clinicrecords.clinical.models import Referral
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from clinicrecords.scheduling.models import Appointment
from clinicrecords.scheduling.schemas import (
    SANDBOX_APPOINTMENT_ID,
    SANDBOX_CALENDAR_PROVIDER_IDS,
    AppointmentCreate,
)
from tests.common.clinical import add_patient, admin, clinic_db, headers, idem, restrict, sandbox

FIELDS = {"id", "patient_id", "provider_id", "starts_at", "ends_at", "status", "referral_id", "reason", "source",
          "editable", "cancelled_at", "created_at", "updated_at"}
FIRST, SECOND = map(str, SANDBOX_CALENDAR_PROVIDER_IDS)
PATIENT = str(SANDBOX_PATIENT_IDS[0])
MONDAY_9 = "2099-06-01T09:00:00Z"   # a Monday; both sandbox clinicians work Monday to Friday 09:00-17:00 UTC
TUESDAY_9 = "2099-06-02T09:00:00Z"  # the first clinician is away all Tuesday 2 June 2099


@pytest.fixture
def box(world):
    clinic_id, key = sandbox(world)
    return clinic_id, key, f"/v1/clinics/{clinic_id}/appointments"


def book(testapp, key, url, status=201, **body):
    return testapp.post_json(url, {"patient_id": PATIENT, **body}, headers=idem(key), status=status)


def test_example_books_any_clinician_twice_then_nobody_is_free(testapp, box):
    clinic_id, key, url = box
    first = testapp.post_json(url, AppointmentCreate.EXAMPLE, headers=idem(key), status=201)
    data = first.json["data"]
    assert set(data) == FIELDS
    assert first.headers["Location"].endswith(f"{url}/{data['id']}")
    assert (data["provider_id"], data["status"], data["source"], data["editable"]) == (FIRST, "booked", "api", True)
    assert data["ends_at"] == "2099-06-01T09:30:00+00:00"
    second = testapp.post_json(url, AppointmentCreate.EXAMPLE, headers=idem(key), status=201).json["data"]
    assert second["provider_id"] == SECOND
    third = testapp.post_json(url, AppointmentCreate.EXAMPLE, headers=idem(key), status=409)
    assert third.json["code"] == "no_provider_available"


def test_a_named_clinician_slot_taken_and_out_of_office(testapp, box):
    clinic_id, key, url = box
    book(testapp, key, url, provider_id=SECOND, starts_at=MONDAY_9)
    taken = book(testapp, key, url, status=409, provider_id=SECOND, starts_at=MONDAY_9)
    assert taken.json["code"] == "slot_taken"
    # The seeded appointment occupies the first clinician's Monday 10:00.
    assert book(testapp, key, url, status=409, provider_id=FIRST,
                starts_at="2099-06-01T10:00:00Z").json["code"] == "slot_taken"
    # Blocked (away) and outside working hours are both out_of_office.
    assert book(testapp, key, url, status=409, provider_id=FIRST, starts_at=TUESDAY_9).json["code"] == "out_of_office"
    assert book(testapp, key, url, status=400, provider_id=FIRST,
                starts_at="2099-06-01T16:45:00+00:00").json["code"] == "invalid_request"
    assert book(testapp, key, url, status=409, provider_id=FIRST,
                starts_at="2099-06-01T17:00:00Z").json["code"] == "out_of_office"
    assert book(testapp, key, url, status=409, provider_id=FIRST,
                starts_at="2099-06-06T09:00:00Z").json["code"] == "out_of_office"  # a Saturday
    # Any clinician on Tuesday: the first is away, the second is free.
    assert book(testapp, key, url, starts_at=TUESDAY_9).json["data"]["provider_id"] == SECOND


def test_any_clinician_can_be_narrowed_by_specialty(testapp, box):
    clinic_id, key, url = box
    # The second sandbox clinician is the pediatrics nurse practitioner.
    assert book(testapp, key, url, starts_at=MONDAY_9, specialty="pediatrics").json["data"]["provider_id"] == SECOND
    assert book(testapp, key, url, status=409, starts_at=MONDAY_9,
                specialty="pediatrics").json["code"] == "no_provider_available"
    assert book(testapp, key, url, status=409, starts_at=MONDAY_9,
                specialty="cardiology").json["code"] == "no_provider_available"


@pytest.mark.parametrize("body, pointer", [
    ({"starts_at": "2099-06-01T09:10:00Z"}, "/starts_at"),
    ({"starts_at": "2020-06-01T09:00:00Z"}, "/starts_at"),
    ({"starts_at": "2099-06-01T09:00:00"}, "/starts_at"),
    ({"starts_at": MONDAY_9, "patient_id": str(uuid.uuid4())}, "/patient_id"),
    ({"starts_at": MONDAY_9, "provider_id": str(uuid.uuid4())}, "/provider_id"),
    ({"starts_at": MONDAY_9, "referral_id": str(uuid.uuid4())}, "/referral_id"),
    ({"starts_at": MONDAY_9, "ends_at": "2099-06-01T10:00:00Z"}, "/ends_at"),
])
def test_bad_bookings_are_400_with_a_pointer(testapp, box, body, pointer):
    clinic_id, key, url = box
    response = book(testapp, key, url, status=400, **body)
    assert response.json["code"] == "invalid_request"
    assert pointer in [e["pointer"] for e in response.json["errors"]]


def test_idempotency_key_is_required_and_replays(testapp, box):
    clinic_id, key, url = box
    testapp.post_json(url, AppointmentCreate.EXAMPLE, headers=headers(key), status=400)
    same = idem(key)
    first = testapp.post_json(url, AppointmentCreate.EXAMPLE, headers=same, status=201)
    again = testapp.post_json(url, AppointmentCreate.EXAMPLE, headers=same, status=201)
    assert again.json["data"]["id"] == first.json["data"]["id"]


def test_a_referral_is_cited_only_once_the_clinic_scheduled_it(testapp, world, box):
    clinic_id, key, url = box
    patient = add_patient(world, clinic_id)
    with clinic_db(world, clinic_id) as db:
        referral = Referral(id=uuid.uuid4(), patient_id=patient, status="accepted", reason_code="I10",
                            specialty="cardiology")
        db.add(referral)
        referral_id = referral.id
    body = {"patient_id": str(patient), "starts_at": MONDAY_9, "referral_id": str(referral_id)}
    refused = testapp.post_json(url, body, headers=idem(key), status=409)
    assert refused.json["code"] == "referral_not_scheduled"
    # Another patient's referral is no referral at all for this booking.
    other = {**body, "patient_id": PATIENT}
    assert testapp.post_json(url, other, headers=idem(key), status=400).json["errors"][0]["pointer"] == "/referral_id"
    status, _, err = admin("referral", "act", "--clinic", clinic_id, referral_id, "--status", "scheduled")
    assert status == 0, err
    booked = testapp.post_json(url, body, headers=idem(key), status=201).json["data"]
    assert booked["referral_id"] == str(referral_id)


def test_list_filters_and_reads(testapp, box):
    clinic_id, key, url = box
    mine = book(testapp, key, url, provider_id=SECOND, starts_at=TUESDAY_9).json["data"]
    everything = testapp.get(url, headers=headers(key)).json["data"]
    assert [a["id"] for a in everything] == [str(SANDBOX_APPOINTMENT_ID), mine["id"]]  # in start order
    assert [a["id"] for a in testapp.get(url, {"provider_id": SECOND}, headers=headers(key)).json["data"]] == [
        mine["id"]]
    assert [a["id"] for a in testapp.get(url, {"from": TUESDAY_9}, headers=headers(key)).json["data"]] == [
        mine["id"]]
    assert [a["id"] for a in testapp.get(url, {"to": TUESDAY_9}, headers=headers(key)).json["data"]] == [
        str(SANDBOX_APPOINTMENT_ID)]
    assert testapp.get(url, {"status": "cancelled"}, headers=headers(key)).json["data"] == []
    assert testapp.get(url, {"patient_id": PATIENT}, headers=headers(key)).json["data"][0]["id"] == mine["id"]
    assert testapp.get(url, {"bogus": "1"}, headers=headers(key), status=400).json["code"] == "invalid_request"
    one = testapp.get(f"{url}/{mine['id']}", headers=headers(key)).json["data"]
    assert one == mine


def test_restricted_patients_appointments_are_not_found(testapp, world, box):
    clinic_id, key, url = box
    patient = add_patient(world, clinic_id)
    booked = book(testapp, key, url, patient_id=str(patient), starts_at=MONDAY_9).json["data"]
    restrict(world, clinic_id, patient)
    testapp.get(f"{url}/{booked['id']}", headers=headers(key), status=404)
    assert booked["id"] not in [a["id"] for a in testapp.get(url, headers=headers(key)).json["data"]]
    # Nor can a restricted patient be booked.
    assert book(testapp, key, url, status=400, patient_id=str(patient),
                starts_at=TUESDAY_9).json["errors"][0]["pointer"] == "/patient_id"


def test_cancel_frees_the_slot_and_only_the_booking_app_may_cancel(testapp, world, box):
    clinic_id, key, url = box
    seeded = testapp.post(f"{url}/{SANDBOX_APPOINTMENT_ID}/cancel", headers=headers(key)).json["data"]
    assert (seeded["status"], seeded["cancelled_at"] is not None) == ("cancelled", True)
    again = testapp.post(f"{url}/{SANDBOX_APPOINTMENT_ID}/cancel", headers=headers(key)).json["data"]
    assert again["cancelled_at"] == seeded["cancelled_at"]
    # The slot is free again.
    book(testapp, key, url, provider_id=FIRST, starts_at="2099-06-01T10:00:00Z")
    # An appointment the clinic booked (or another app) cannot be cancelled through the API.
    with clinic_db(world, clinic_id) as db:
        start = datetime.datetime(2099, 6, 3, 9, tzinfo=datetime.UTC)
        clinics = Appointment(id=uuid.uuid4(), patient_id=SANDBOX_PATIENT_IDS[0], provider_id=uuid.UUID(FIRST),
                              starts_at=start, ends_at=start + datetime.timedelta(minutes=30), status="booked")
        db.add(clinics)
        clinics_id = clinics.id
    refused = testapp.post(f"{url}/{clinics_id}/cancel", headers=headers(key), status=409)
    assert refused.json["code"] == "appointment_clinic_managed"
    listed = {a["id"]: a for a in testapp.get(url, headers=headers(key)).json["data"]}
    assert (listed[str(clinics_id)]["source"], listed[str(clinics_id)]["editable"]) == ("clinic", False)


def test_permissions(testapp, world):
    connected = world.connected(scopes={"appointments:read"})
    url = f"/v1/clinics/{connected.clinic_id}/appointments"
    assert testapp.get(url, headers=connected.headers).json["data"] == []
    refused = testapp.post_json(url, AppointmentCreate.EXAMPLE, headers={**connected.headers,
                                                                         "Idempotency-Key": "k1"}, status=403)
    assert refused.json["code"] == "scope_missing"
    other = world.connected(scopes={"patients:read"})
    assert testapp.get(f"/v1/clinics/{other.clinic_id}/appointments", headers=other.headers,
                       status=403).json["code"] == "scope_missing"


@pytest.mark.commits  # bookings race from threads
def test_two_concurrent_bookings_of_one_slot_exactly_one_wins(app, world):
    clinic_id, key = sandbox(world)
    url = f"/v1/clinics/{clinic_id}/appointments"
    body = {"patient_id": PATIENT, "provider_id": SECOND, "starts_at": "2099-06-03T14:00:00Z"}
    barrier = threading.Barrier(4)
    statuses = []

    def attempt():
        client = webtest.TestApp(app)
        barrier.wait()
        response = client.post_json(url, body, headers=idem(key), expect_errors=True)
        statuses.append((response.status_int, response.json.get("code")))

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses, key=str) == sorted([(201, None)] + [(409, "slot_taken")] * 3, key=str)
    with clinic_db(world, clinic_id) as db:
        assert db.scalar(select(func.count()).select_from(Appointment).where(
            Appointment.provider_id == uuid.UUID(SECOND), Appointment.status == "booked")) == 1


@pytest.mark.commits  # bookings race from threads
def test_any_clinician_under_concurrency_fills_each_clinician_once(app, world):
    clinic_id, key = sandbox(world)
    url = f"/v1/clinics/{clinic_id}/appointments"
    body = {"patient_id": PATIENT, "starts_at": "2099-06-04T14:00:00Z"}
    barrier = threading.Barrier(4)
    statuses = []

    def attempt():
        client = webtest.TestApp(app)
        barrier.wait()
        response = client.post_json(url, body, headers=idem(key), expect_errors=True)
        statuses.append(response.json.get("code") or response.json["data"]["provider_id"])

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == sorted([FIRST, SECOND, "no_provider_available", "no_provider_available"])


def test_a_clinic_timezone_moves_working_hours(testapp, world):
    clinic_id, key = sandbox(world)
    url = f"/v1/clinics/{clinic_id}/appointments"
    assert admin("clinic", "set", clinic_id, "--timezone", "America/New_York")[0] == 0
    # 09:00 UTC is 05:00 in New York (summer time): nobody works yet; 13:00 UTC is 09:00 there.
    assert book(testapp, key, url, status=409, provider_id=SECOND,
                starts_at=MONDAY_9).json["code"] == "out_of_office"
    assert book(testapp, key, url, provider_id=SECOND,
                starts_at="2099-06-01T09:00:00-04:00").json["data"]["starts_at"] == "2099-06-01T13:00:00+00:00"

