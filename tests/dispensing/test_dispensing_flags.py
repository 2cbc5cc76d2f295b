import datetime
import json
import re
import uuid

import pytest

from clinicrecords.dispensing.models import Dispensing
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from clinicrecords.sandbox.interfaces import sandbox_id
from tests.insurance.helpers import Caller, admin, restrict, sandbox_caller, staff

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

ADA, BRAM, CHIDI, DANA = map(str, SANDBOX_PATIENT_IDS[:4])
SPEC_FIELDS = {"id", "patient_id", "medicine", "days_supply", "date", "check_state", "flags", "evidence", "reason"}


@pytest.fixture
def caller(world):
    return sandbox_caller(world)


def _flags(testapp, caller, params=None, status=200):
    return testapp.get(caller.url("dispensing/flags"), params or {}, headers=caller.headers, status=status)


def test_lists_only_the_callers_enrolled_patients_with_every_field(testapp, caller):
    flags = _flags(testapp, caller).json["data"]
    assert {f["patient_id"] for f in flags} == {ADA, BRAM}
    assert len(flags) == 4
    assert all(set(flag) == SPEC_FIELDS for flag in flags)
    assert [f["date"] for f in flags] == sorted(f["date"] for f in flags)
    override = next(f for f in flags if f["id"] == str(sandbox_id("dispensing:3")))
    assert override["medicine"] == {"name": "Atorvastatin 20 mg tablets", "generic_name": "atorvastatin",
                                    "brand_name": "Lipitor",
                                    "identifiers": [{"system": "gtin", "value": "00312345678906"}]}
    assert override["days_supply"] == 30
    assert (override["check_state"], override["flags"]) == ("overridden", ["early_refill"])
    assert override["reason"] == {"code": "lost", "text": "Patient reports the bottle was lost while travelling."}
    assert override["evidence"]["previous_days_supply"] == 30
    assert override["evidence"]["days_since_previous"] == 19
    assert override["evidence"]["supply_days_remaining"] == 11
    clear = next(f for f in flags if f["id"] == str(sandbox_id("dispensing:1")))
    assert (clear["check_state"], clear["flags"], clear["evidence"], clear["reason"]) == ("clear", [], {}, None)


def _walk(value, path=""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}/{key}", key
            yield from _walk(item, f"{path}/{key}")
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _walk(item, f"{path}/{n}")


def test_a_flag_never_exposes_price_margin_staff_or_another_customer(world, testapp, caller):
    pharmacist = uuid.uuid4()
    now = datetime.datetime.now(datetime.UTC)
    common = ("--clinic", caller.clinic_id, "--price", "987.65", "--pharmacist-id", pharmacist,
              "--pharmacist-name", "Quentin Secretpharmacist")
    # Another customer buys the same medicine at the same pharmacy: never mentioned in Ada's flag.
    admin("dispensing", "record", *common, "--patient", DANA, "--medicine-name", "Atorvastatin 20 mg tablets",
          "--generic-name", "atorvastatin", "--gtin", "00312345678906", "--days-supply", "30",
          "--dispensed-at", (now - datetime.timedelta(hours=3)).isoformat())
    status, recorded, _ = admin("dispensing", "record", *common, "--patient", ADA,
                                "--medicine-name", "Atorvastatin 20 mg tablets", "--generic-name", "atorvastatin",
                                "--gtin", "00312345678906", "--days-supply", "30",
                                "--reason-code", "travel", "--reason-text", "Leaving the country for a month.")
    assert status == 0 and recorded["check_state"] == "overridden"
    response = _flags(testapp, caller)
    text = response.text.lower()
    for forbidden in (str(pharmacist), DANA, CHIDI):
        assert forbidden not in text, forbidden
    # The words and numbers are looked for outside the answer's ids: a random uuid may well hold "987".
    words = _UUID.sub("", text)
    for forbidden in ("price", "margin", "cost", "pharmacist", "staff", "987.65", "987", "quentin",
                      "secretpharmacist", "salbutamol", "ventolin", "12.4"):
        assert forbidden not in words, forbidden
    allowed_keys = SPEC_FIELDS | {"name", "generic_name", "brand_name", "identifiers", "system", "value", "code",
                                  "text", "previous_dispensed_at", "previous_days_supply", "days_since_previous",
                                  "supply_days_remaining", "data", "has_more", "next_cursor"}
    document = json.loads(response.text)
    assert {key for _, key in _walk(document)} <= allowed_keys
    mine = next(f for f in document["data"] if f["id"] == recorded["dispensing_id"])
    # The evidence is Ada's own previous dispensing (6 days ago), not Dana's three hours ago.
    assert mine["evidence"]["days_since_previous"] == 6 and mine["flags"] == ["early_refill"]


def test_a_restricted_patient_is_never_listed(world, testapp, caller):
    restrict(world, caller.clinic_id, SANDBOX_PATIENT_IDS[0])
    assert {f["patient_id"] for f in _flags(testapp, caller).json["data"]} == {BRAM}


def test_a_clinic_key_has_no_enrollees(world, testapp):
    clinic_id = world.clinic(seed=True)
    clinic_caller = Caller(clinic_id, None, world.key(clinic_id=clinic_id))
    assert _flags(testapp, clinic_caller).json == {"data": [], "has_more": False, "next_cursor": None}


def test_enroll_and_unenroll(world, testapp, caller):
    base = ("--clinic", caller.clinic_id, "--workspace", caller.workspace_id, "--patient", CHIDI)
    assert admin("dispensing", "enroll", *base)[1]["enrolled"] is True
    assert admin("dispensing", "enroll", *base)[0] == 0
    assert CHIDI in {f["patient_id"] for f in _flags(testapp, caller).json["data"]}
    assert admin("dispensing", "unenroll", *base)[1]["enrolled"] is False
    assert CHIDI not in {f["patient_id"] for f in _flags(testapp, caller).json["data"]}
    assert admin("dispensing", "unenroll", *base)[0] == 2
    assert admin("dispensing", "enroll", "--clinic", caller.clinic_id, "--workspace", uuid.uuid4(),
                 "--patient", CHIDI)[0] == 2


def test_date_window(world, testapp, caller):
    today = datetime.datetime.now(datetime.UTC).date()
    old = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=45)).isoformat()
    _, recorded, _ = admin("dispensing", "record", "--clinic", caller.clinic_id, "--patient", BRAM,
                           "--medicine-name", "Lisinopril 10 mg", "--days-supply", "30", "--dispensed-at", old)

    def ids(response):
        return {f["id"] for f in response.json["data"]}

    assert recorded["dispensing_id"] not in ids(_flags(testapp, caller))
    wide = _flags(testapp, caller, {"from": str(today - datetime.timedelta(days=60)), "to": str(today)})
    assert recorded["dispensing_id"] in ids(wide) and len(wide.json["data"]) == 5
    narrow = _flags(testapp, caller, {"from": str(today - datetime.timedelta(days=7)),
                                      "to": str(today - datetime.timedelta(days=1))})
    assert ids(narrow) == {str(sandbox_id("dispensing:3")), str(sandbox_id("dispensing:4"))}
    only_bram = _flags(testapp, caller, {"patient_id": BRAM, "from": str(today - datetime.timedelta(days=365))})
    assert {f["patient_id"] for f in only_bram.json["data"]} == {BRAM}


@pytest.mark.parametrize("params, pointer", [
    ({"from": "2025-03-02", "to": "2025-03-01"}, "/from"),
    ({"from": "2024-01-01", "to": "2025-01-01"}, "/from"),
    ({"to": "2025-02-30"}, "/to"),
    ({"from": "yesterday"}, "/from"),
    ({"limit": "0"}, "/limit"),
    ({"limit": "101"}, "/limit"),
    ({"patient_id": "ada"}, "/patient_id"),
    ({"since": "2025-01-01"}, "/since"),
])
def test_bad_queries(testapp, caller, params, pointer):
    response = _flags(testapp, caller, params, status=400)
    assert [e["pointer"] for e in response.json["errors"]] == [pointer]


def test_a_366_day_window_is_accepted(testapp, caller):
    _flags(testapp, caller, {"from": "2024-01-01", "to": "2024-12-31"})


def test_pages(testapp, caller):
    seen, params = [], {"limit": "1"}
    while True:
        page = _flags(testapp, caller, params).json
        seen += [f["id"] for f in page["data"]]
        if not page["has_more"]:
            break
        params = {"limit": "1", "starting_after": page["next_cursor"]}
    assert len(seen) == len(set(seen)) == 4


def test_needs_dispensing_read(world, testapp):
    caller = sandbox_caller(world, scopes={"patients:read"})
    response = _flags(testapp, caller, status=403)
    assert response.json["code"] == "scope_missing" and "dispensing:read" in response.json["detail"]


def test_duplicate_dispensing_is_flagged_without_a_reason(world, caller):
    base = ("dispensing", "record", "--clinic", caller.clinic_id, "--patient", BRAM,
            "--medicine-name", "Metformin 500 mg tablets", "--generic-name", "Metformin", "--days-supply", "28")
    # Bram's seeded metformin (28 days) was 3 days ago: an early refill; the same again today: a duplicate.
    status, result, _ = admin(*base)
    assert status == 0 and (result["check_state"], result["flags"]) == ("flagged", ["early_refill"])
    status, again, _ = admin(*base)
    assert (again["check_state"], again["flags"]) == ("flagged", ["duplicate_dispensing"])


def test_record_refuses_bad_input_and_changes_nothing(world, caller):
    def count():
        with staff(world, caller.clinic_id) as (db, _):
            return db.query(Dispensing).count()

    before = count()
    base = ("dispensing", "record", "--clinic", caller.clinic_id, "--medicine-name", "Ibuprofen 200 mg",
            "--days-supply", "10")
    for extra in [
        ("--patient", str(uuid.uuid4())),
        ("--patient", CHIDI, "--reason-code", "lost", "--reason-text", "No flag to override."),
        ("--patient", CHIDI, "--reason-code", "lost"),
        ("--patient", CHIDI, "--reason-code", "forgot", "--reason-text", "x"),
        ("--patient", CHIDI, "--gtin", "12345"),
        ("--patient", CHIDI, "--price", "-1"),
        ("--patient", CHIDI, "--price", "cheap"),
        ("--patient", CHIDI, "--dispensed-at", "soon"),
    ]:
        status, result, _ = admin(*base, *extra)
        assert status == 2 and result is None, extra
    assert admin("dispensing", "record", "--clinic", caller.clinic_id, "--patient", CHIDI, "--medicine-name", " ",
                 "--days-supply", "10")[0] == 2
    assert admin("dispensing", "record", "--clinic", caller.clinic_id, "--patient", CHIDI, "--medicine-name", "X",
                 "--days-supply", "0")[0] == 2
    assert count() == before
