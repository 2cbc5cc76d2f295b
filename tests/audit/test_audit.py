"""The audit trail: every request reaching patient data is appended, whatever its outcome; nothing else."""

import datetime
import json
import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from clinicrecords.db.tenancy import schema_name
from clinicrecords.patients.schemas import PatientCreate
from tests.common.cli import admin

TESTING_INI = "testing.ini"


def entries(clinic_id, *extra):
    status, result, err = admin("audit", "list", "--clinic", str(clinic_id), *extra)
    assert status == 0, err
    return result["data"]


def _create_patient(testapp, connected, **overrides):
    return testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", dict(PatientCreate.EXAMPLE, **overrides),
                             headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())}, status=201)


def test_a_write_and_a_read_are_recorded_with_who_what_and_outcome_never_content(testapp, connected):
    created = _create_patient(testapp, connected, family_name="Zanzibarova").json["data"]
    read = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients/{created['id']}", headers=connected.headers)
    write_entry, read_entry = entries(connected.clinic_id)
    assert write_entry["method"] == "POST" and write_entry["status"] == 201
    assert write_entry["route"] == "/v1/clinics/{id}/patients"
    assert write_entry["record_ids"] == [created["id"]]
    assert write_entry["owner"] == {"kind": "workspace", "id": str(connected.workspace_id)}
    assert write_entry["key_id"] and connected.key.find(write_entry["key_id"]) >= 0
    assert read_entry["method"] == "GET" and read_entry["status"] == 200
    assert read_entry["route"] == "/v1/clinics/{id}/patients/{id}"
    assert read_entry["record_ids"] == [created["id"]]
    assert read_entry["request_id"] == read.headers["X-Request-Id"]
    assert "Zanzibarova" not in json.dumps([write_entry, read_entry])


def test_the_clinic_s_id_is_never_a_record_id_however_the_path_writes_it(testapp, connected):
    created = _create_patient(testapp, connected).json["data"]
    testapp.get(f"/v1/clinics/{str(connected.clinic_id).upper()}/patients/{created['id'].upper()}",
                headers=connected.headers)
    assert entries(connected.clinic_id)[-1]["record_ids"] == [created["id"]]


def test_a_page_read_names_every_record_it_showed(testapp, connected):
    ids = {_create_patient(testapp, connected).json["data"]["id"] for _ in range(2)}
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    assert set(entries(connected.clinic_id)[-1]["record_ids"]) == ids


def test_refusals_are_recorded_in_their_own_transaction(testapp, world, connected):
    missing = uuid.uuid4()
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients/{missing}", headers=connected.headers, status=404)
    body = dict(PatientCreate.EXAMPLE, birth_date="not a date")
    testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", body,
                      headers={**connected.headers, "Idempotency-Key": "x"}, status=400)
    narrow = world.key(workspace_id=connected.workspace_id, mode="live", scopes={"allergies:read"})
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers={"Authorization": f"Bearer {narrow}"},
                status=403)
    not_found, invalid, scope_missing = entries(connected.clinic_id)
    assert (not_found["status"], not_found["record_ids"]) == (404, [str(missing)])
    assert (invalid["method"], invalid["status"], invalid["record_ids"]) == ("POST", 400, [])
    assert scope_missing["status"] == 403 and scope_missing["key_id"] != not_found["key_id"]
    listed = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers).json["data"]
    assert listed == []  # the refused write left nothing behind


def test_every_audited_collection_is_recorded_and_other_routes_are_not(testapp, world, connected):
    clinic = connected.clinic_id
    for path in ("allergies", "conditions", "medication-statements", "referrals", "submissions", "encounters",
                 "prescriptions", "care-providers", "coverages", "dispensing/flags", "patients", "appointments"):
        testapp.get(f"/v1/clinics/{clinic}/{path}", headers=connected.headers, status="*")
    testapp.get(f"/v1/clinics/{clinic}/providers", headers=connected.headers)
    testapp.get(f"/v1/clinics/{clinic}/inventory/items", headers=connected.headers, status="*")
    own = world.key(clinic_id=clinic)
    testapp.get(f"/v1/clinics/{clinic}/patient-imports", headers={"Authorization": f"Bearer {own}"}, status="*")
    routes = [e["route"].removeprefix("/v1/clinics/{id}/") for e in entries(clinic)]
    assert routes == ["allergies", "conditions", "medication-statements", "referrals", "submissions",
                      "encounters", "prescriptions", "care-providers", "coverages", "dispensing/flags",
                      "patients", "appointments", "patient-imports"]
    assert entries(clinic)[-1]["owner"] == {"kind": "clinic", "id": str(clinic)}


def test_a_sandbox_key_is_audited_in_the_sandbox_clinic(testapp, world):
    workspace_id, sandbox_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    testapp.get(f"/v1/clinics/{sandbox_id}/patients", headers={"Authorization": f"Bearer {key}"})
    [entry] = entries(sandbox_id)
    assert entry["owner"] == {"kind": "workspace", "id": str(workspace_id)} and entry["record_ids"]


@pytest.mark.parametrize("statement", ["UPDATE audit_log SET status = 200", "DELETE FROM audit_log",
                                       "TRUNCATE audit_log"])
def test_the_audit_log_cannot_be_changed(testapp, engine, connected, statement):
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    with pytest.raises(DBAPIError, match="append-only"):
        with engine.begin() as connection:
            connection.execute(text("SELECT set_config('search_path', :s, true)"),
                               {"s": schema_name(connected.clinic_id)})
            connection.execute(text(statement))
    assert len(entries(connected.clinic_id)) == 1


def test_audit_list_filters_by_time_and_key(testapp, world, connected):
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    other = world.key(workspace_id=connected.workspace_id, mode="live")
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers={"Authorization": f"Bearer {other}"})
    first, second = entries(connected.clinic_id)
    assert entries(connected.clinic_id, "--key", second["key_id"]) == [second]
    assert entries(connected.clinic_id, "--since", second["at"]) == [second]
    future = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1)).isoformat()
    assert entries(connected.clinic_id, "--since", future) == []


@pytest.mark.parametrize("argv", [
    ["--clinic", "not-a-uuid"],
    ["--clinic", str(uuid.UUID(int=7))],
    ["--clinic", str(uuid.UUID(int=7)), "--since", "yesterday"],
    [],
])
def test_audit_list_refuses_bad_input(argv):
    status, result, err = admin("audit", "list", *argv)
    assert status == 2 and result is None
