"""Patient imports through HTTP: formats, limits, review, duplicates, already_imported, failure, the wait bound."""

import datetime
import json
import uuid

import pytest
from sqlalchemy import func, select, text, update

from clinicrecords.db.tenancy import schema_name
from clinicrecords.patients.imports.models import PatientImport, PatientImportRun
from clinicrecords.patients.imports.schemas import MAX_BYTES, PatientImportCreate
from clinicrecords.patients.imports.tasks import write_rows
from clinicrecords.patients.models import Patient
from tests.common.clinical import add_patient, clinic_db, headers, sandbox


def _row(n, **overrides):
    return {"given_name": f"Given{n}", "family_name": f"Family{n}", "birth_date": "1980-01-01", **overrides}


@pytest.fixture
def clinic(world):
    clinic_id = world.clinic()
    return clinic_id, world.key(clinic_id=clinic_id), f"/v1/clinics/{clinic_id}/patient-imports"


def _import(testapp, clinic, body, status=201):
    clinic_id, key, url = clinic
    return testapp.post_json(url, body, headers=headers(key), status=status)


def _patients(world, clinic_id):
    with clinic_db(world, clinic_id) as db:
        return db.scalars(select(Patient).order_by(Patient.family_name)).all()


def test_example_imports_and_answers_the_finished_job(world, testapp, clinic):
    response = _import(testapp, clinic, PatientImportCreate.EXAMPLE)
    job = response.json["data"]
    assert job["status"] == "succeeded"
    assert (job["row_count"], job["last_processed_row"], job["row_errors"]) == (2, 2, [])
    assert job["counts"] == {"created": 2, "flagged_duplicate": 0, "skipped_already_imported": 0, "failed": 0}
    assert job["started_by"] == "key" and job["valid_only_run_at"] is None
    assert response.headers["Location"].endswith(f"{clinic[2]}/{job['id']}")
    assert [p.family_name for p in _patients(world, clinic[0])] == ["Haddad", "Lindqvist"]
    read = testapp.get(f"{clinic[2]}/{job['id']}", headers=headers(clinic[1])).json["data"]
    assert read == job


def test_identical_content_is_already_imported_so_a_retry_is_safe(world, testapp, clinic):
    first = _import(testapp, clinic, PatientImportCreate.EXAMPLE).json["data"]
    response = _import(testapp, clinic, PatientImportCreate.EXAMPLE, status=409)
    assert response.json["code"] == "already_imported"
    assert first["id"] in response.json["detail"]
    assert len(_patients(world, clinic[0])) == 2


def test_ndjson(world, testapp, clinic):
    lines = "\n".join(json.dumps(_row(n)) for n in range(3)) + "\n\n"
    job = _import(testapp, clinic, {"input_format": "ndjson", "data": lines}).json["data"]
    assert (job["status"], job["row_count"], job["counts"]["created"]) == ("succeeded", 3, 3)


def test_ndjson_lines_that_are_not_objects_are_row_errors(testapp, clinic):
    data = json.dumps(_row(1)) + "\n{not json\n[1, 2]\n"
    job = _import(testapp, clinic, {"input_format": "ndjson", "data": data}).json["data"]
    assert job["status"] == "needs_review"
    assert job["row_errors"] == [{"row": 2, "field": "", "reason": "The line is not valid JSON."},
                                 {"row": 3, "field": "", "reason": "A row must be a JSON object."}]


def test_an_ndjson_line_that_names_a_key_twice_is_a_row_error_at_that_key(testapp, clinic):
    line = json.dumps(_row(2))[:-1] + ', "family_name": "Other"}'
    data = json.dumps(_row(1)) + "\n" + line
    job = _import(testapp, clinic, {"input_format": "ndjson", "data": data}).json["data"]
    assert job["status"] == "needs_review"
    assert job["row_errors"] == [{"row": 2, "field": "family_name",
                                  "reason": "This key appears more than once in its object."}]


def test_fhir_bundle_uses_patient_entries_and_ignores_the_others(world, testapp, clinic):
    bundle = {"resourceType": "Bundle", "type": "collection", "entry": [
        {"resource": {"resourceType": "Organization", "name": "Somewhere"}},
        {"resource": {"resourceType": "Patient", "name": [{"family": "Adeyemi", "given": ["Tola"]}],
                      "birthDate": "1975-05-05", "gender": "female",
                      "telecom": [{"system": "email", "value": "tola@example.org"}],
                      "address": [{"line": ["1 Main St"], "city": "Springfield", "state": "MA", "country": "US"}],
                      "identifier": [{"system": "urn:legacy", "value": "L-77"}]}},
        {"resource": {"resourceType": "Observation", "status": "final"}},
        {"resource": {"resourceType": "Patient", "name": [{"family": "Brook", "given": ["Sam"]}],
                      "birthDate": "2010-10-10"}},
    ]}
    job = _import(testapp, clinic, {"input_format": "fhir_bundle", "data": bundle}).json["data"]
    assert (job["status"], job["row_count"], job["counts"]["created"]) == ("succeeded", 2, 2)
    adeyemi, brook = _patients(world, clinic[0])
    assert (adeyemi.given_name, adeyemi.email, adeyemi.external_id, adeyemi.address["region"]) == (
        "Tola", "tola@example.org", "L-77", "MA")
    assert brook.sex is None


def test_fhir_bundle_rows_are_validated_like_a_create(testapp, clinic):
    bundle = {"resourceType": "Bundle", "entry": [
        {"resource": {"resourceType": "Patient", "name": [{"family": "NoGiven"}], "birthDate": "1975-05-05"}},
        {"resource": {"resourceType": "Patient", "name": [{"family": "X", "given": ["Y"]}], "birthDate": "soon",
                      "gender": "robot"}}]}
    job = _import(testapp, clinic, {"input_format": "fhir_bundle", "data": bundle}).json["data"]
    assert job["status"] == "needs_review"
    assert {(e["row"], e["field"]) for e in job["row_errors"]} == {(1, "given_name"), (2, "birth_date"), (2, "sex")}
    assert "robot" not in json.dumps(job) and "soon" not in json.dumps(job)


def test_invalid_rows_write_nothing_and_never_echo_the_value(world, testapp, clinic):
    rows = [_row(1), _row(2, birth_date="31/02/1999-SECRET"), _row(3, email="SECRET-not-an-email",
                                                                     address={"country": "SECRETLAND"}),
            _row(4, allergies=["peanut-SECRET"]), "SECRET-string-row", _row(6, nickname="SECRET")]
    response = _import(testapp, clinic, {"input_format": "json_array", "data": rows})
    job = response.json["data"]
    assert job["status"] == "needs_review" and job["last_processed_row"] == 0
    assert {(e["row"], e["field"]) for e in job["row_errors"]} == {
        (2, "birth_date"), (3, "email"), (3, "address.country"), (4, "allergies"), (5, ""), (6, "nickname")}
    assert all(set(e) == {"row", "field", "reason"} for e in job["row_errors"])
    assert "SECRET" not in response.text
    assert job["counts"] == {"created": 0, "flagged_duplicate": 0, "skipped_already_imported": 0, "failed": 5}
    assert _patients(world, clinic[0]) == []
    # Resending the same content that needed review is not "already imported": nothing of it was.
    assert _import(testapp, clinic, {"input_format": "json_array", "data": rows}).json["data"]["status"] == \
        "needs_review"


def test_run_valid_rows_writes_only_the_rows_that_passed(world, testapp, clinic):
    rows = [_row(1), _row(2, sex="robot"), _row(3)]
    job = _import(testapp, clinic, {"input_format": "json_array", "data": rows}).json["data"]
    url = f"{clinic[2]}/{job['id']}/run-valid-rows"
    ran = testapp.post(url, headers=headers(clinic[1]), status=200).json["data"]
    assert ran["status"] == "succeeded" and ran["valid_only_run_at"] is not None
    assert ran["counts"] == {"created": 2, "flagged_duplicate": 0, "skipped_already_imported": 0, "failed": 1}
    assert ran["last_processed_row"] == 3 and ran["row_errors"] == job["row_errors"]
    assert [p.family_name for p in _patients(world, clinic[0])] == ["Family1", "Family3"]
    again = testapp.post(url, headers=headers(clinic[1]), status=409)
    assert again.json["code"] == "import_not_runnable"
    # Its content was partly imported: sending it again is refused.
    assert _import(testapp, clinic, {"input_format": "json_array", "data": rows}, status=409).json["code"] == \
        "already_imported"


def test_run_valid_rows_with_no_valid_row_or_on_a_finished_job_is_refused(testapp, clinic):
    bad = _import(testapp, clinic, {"input_format": "json_array", "data": [_row(1, sex="robot")]}).json["data"]
    response = testapp.post(f"{clinic[2]}/{bad['id']}/run-valid-rows", headers=headers(clinic[1]), status=409)
    assert response.json["code"] == "import_not_runnable"
    done = _import(testapp, clinic, PatientImportCreate.EXAMPLE).json["data"]
    testapp.post(f"{clinic[2]}/{done['id']}/run-valid-rows", headers=headers(clinic[1]), status=409)
    testapp.post(f"{clinic[2]}/{uuid.uuid4()}/run-valid-rows", headers=headers(clinic[1]), status=404)


def test_100_rows_are_accepted_and_101_refused_before_any_row_is_read(world, testapp, clinic):
    hundred = [_row(n) for n in range(100)]
    job = _import(testapp, clinic, {"input_format": "json_array", "data": hundred}).json["data"]
    assert (job["status"], job["counts"]["created"]) == ("succeeded", 100)
    # Row 101 is not even an object: the count is refused first, so no row error is ever reported.
    too_many = [_row(n, family_name=f"Other{n}") for n in range(100)] + ["not a row"]
    for body in ({"input_format": "json_array", "data": too_many},
                 {"input_format": "ndjson", "data": "\n".join(json.dumps(r) for r in too_many)},
                 {"input_format": "fhir_bundle", "data": {"resourceType": "Bundle", "entry": [
                     {"resource": {"resourceType": "Patient"}}] * 101}},
                 {"input_format": "json_array", "data": []},
                 {"input_format": "ndjson", "data": "\n \n"}):
        response = _import(testapp, clinic, body, status=400)
        assert response.json["code"] == "invalid_request"
        assert response.json["errors"][0]["pointer"] == "/data"
    assert len(_patients(world, clinic[0])) == 100


@pytest.mark.parametrize("body", [
    {"input_format": "json_array", "data": {"given_name": "A"}},
    {"input_format": "ndjson", "data": [_row(1)]},
    {"input_format": "fhir_bundle", "data": [_row(1)]},
    {"input_format": "csv", "data": "a,b"},
    {"data": [_row(1)]},
])
def test_data_must_match_its_format(testapp, clinic, body):
    assert _import(testapp, clinic, body, status=400).json["code"] == "invalid_request"


def _padded(body, size):
    raw = json.dumps(body).encode()
    return raw[:-1] + b" " * (size - len(raw)) + raw[-1:]


def _post_raw(testapp, url, key, raw, status):
    return testapp.post(url, raw, headers=headers(key, **{"Content-Type": "application/json"}), status=status)


def test_10_mib_is_accepted_and_one_byte_more_refused(world, testapp, clinic):
    clinic_id, key, url = clinic
    body = {"input_format": "json_array", "data": [_row(1)]}
    exactly = _padded(body, MAX_BYTES)
    assert len(exactly) == MAX_BYTES
    assert _post_raw(testapp, url, key, exactly, 201).json["data"]["status"] == "succeeded"
    over = _padded(dict(body, data=[_row(2)]), MAX_BYTES + 1)
    assert _post_raw(testapp, url, key, over, 413).json["code"] == "payload_too_large"
    assert [p.family_name for p in _patients(world, clinic_id)] == ["Family1"]


def test_possible_duplicates_are_created_and_flagged(world, testapp, clinic):
    clinic_id = clinic[0]
    add_patient(world, clinic_id, family_name="Okafor", birth_date=datetime.date(1988, 4, 12))
    rows = [_row(1, family_name="OKAFOR", birth_date="1988-04-12"), _row(2, family_name="Okafor"),
            _row(3, family_name="Twin", birth_date="2000-01-01"), _row(4, family_name="twin", birth_date="2000-01-01")]
    job = _import(testapp, clinic, {"input_format": "json_array", "data": rows}).json["data"]
    assert job["counts"] == {"created": 4, "flagged_duplicate": 2, "skipped_already_imported": 0, "failed": 0}
    assert len(_patients(world, clinic_id)) == 5


def test_a_row_already_imported_by_an_earlier_import_is_skipped(world, testapp, clinic):
    _import(testapp, clinic, {"input_format": "json_array", "data": [_row(1), _row(2)]})
    job = _import(testapp, clinic, {"input_format": "json_array", "data": [_row(2), _row(3)]}).json["data"]
    assert job["counts"] == {"created": 1, "flagged_duplicate": 0, "skipped_already_imported": 1, "failed": 0}
    assert [p.family_name for p in _patients(world, clinic[0])] == ["Family1", "Family2", "Family3"]


def test_an_organization_key_gets_404_whatever_it_was_granted(world, testapp, connected):
    url = f"/v1/clinics/{connected.clinic_id}/patient-imports"
    response = testapp.post_json(url, PatientImportCreate.EXAMPLE, headers=connected.headers, status=404)
    assert response.json["code"] == "not_found"
    sandbox_id, test_key = sandbox(world)
    testapp.post_json(f"/v1/clinics/{sandbox_id}/patient-imports", PatientImportCreate.EXAMPLE,
                      headers=headers(test_key), status=404)
    # Even the id of a job that exists in that clinic.
    clinic_key = world.key(clinic_id=connected.clinic_id)
    job = testapp.post_json(url, PatientImportCreate.EXAMPLE, headers=headers(clinic_key), status=201).json["data"]
    testapp.get(f"{url}/{job['id']}", headers=connected.headers, status=404)
    testapp.get(f"{url}/{job['id']}", headers=headers(clinic_key), status=200)


def test_a_clinic_key_needs_patients_write(world, testapp, clinic):
    clinic_id, full_key, url = clinic
    job = _import(testapp, clinic, PatientImportCreate.EXAMPLE).json["data"]
    key = world.key(clinic_id=clinic_id, scopes=frozenset({"patients:read"}))
    response = testapp.post_json(url, PatientImportCreate.EXAMPLE, headers=headers(key), status=403)
    assert response.json["code"] == "scope_missing"
    testapp.get(f"{url}/{job['id']}", headers=headers(key), status=403)
    testapp.post(f"{url}/{job['id']}/run-valid-rows", headers=headers(key), status=403)


def test_a_row_the_database_refuses_fails_the_job_and_keeps_the_rows_before(world, testapp, engine, clinic):
    clinic_id = clinic[0]
    with engine.begin() as connection:
        # Something only the database knows (a clinic-specific constraint) refuses a row validation accepted.
        connection.execute(text(f'ALTER TABLE "{schema_name(clinic_id)}".patients '
                                "ADD CONSTRAINT no_refused CHECK (family_name <> 'Refused')"))
    rows = [_row(1), _row(2, family_name="Refused"), _row(3)]
    job = _import(testapp, clinic, {"input_format": "json_array", "data": rows}).json["data"]
    assert job["status"] == "failed"
    assert job["last_processed_row"] == 1
    assert job["counts"] == {"created": 1, "flagged_duplicate": 0, "skipped_already_imported": 0, "failed": 2}
    assert [(e["row"], e["field"]) for e in job["row_errors"]] == [(2, "")]
    assert "Refused" not in json.dumps(job)
    assert [p.family_name for p in _patients(world, clinic_id)] == ["Family1"]
    # Part of it was written: the same content again is refused rather than written twice.
    assert _import(testapp, clinic, {"input_format": "json_array", "data": rows}, status=409).json["code"] == \
        "already_imported"
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(PatientImportRun).where(
            PatientImportRun.import_id == uuid.UUID(job["id"]))).scalar() == 0


def test_a_job_interrupted_too_many_times_fails(world, testapp, engine, queued_app, clinic):
    clinic_id, key, url = clinic
    job = queued_app.post_json(url, {"input_format": "json_array", "data": [_row(1), _row(2)]},
                               headers=headers(key), status=202).json["data"]
    with engine.begin() as connection:
        connection.execute(update(PatientImportRun).where(PatientImportRun.import_id == uuid.UUID(job["id"]))
                           .values(resumes=4))
    with world.request() as request:
        write_rows(request, clinic_id, uuid.UUID(job["id"]))
    failed = testapp.get(f"{url}/{job['id']}", headers=headers(key)).json["data"]
    assert failed["status"] == "failed" and failed["counts"]["failed"] == 2
    assert failed["row_errors"][0]["row"] == 1 and "interrupted" in failed["row_errors"][0]["reason"]


def test_a_job_outliving_the_wait_bound_answers_202_and_is_polled(world, testapp, queued_app, clinic):
    from clinicrecords.tasks import huey

    clinic_id, key, url = clinic
    response = queued_app.post_json(url, PatientImportCreate.EXAMPLE, headers=headers(key), status=202)
    job = response.json["data"]
    assert job["status"] == "validating" and job["last_processed_row"] == 0
    location = response.headers["Location"]
    assert location.endswith(f"{url}/{job['id']}")
    # A retried timeout is refused rather than imported twice.
    queued_app.post_json(url, PatientImportCreate.EXAMPLE, headers=headers(key), status=409)
    assert testapp.get(location, headers=headers(key)).json["data"]["status"] == "validating"
    huey.execute(huey.dequeue())
    finished = testapp.get(location, headers=headers(key)).json["data"]
    assert (finished["status"], finished["counts"]["created"]) == ("succeeded", 2)
    with clinic_db(world, clinic_id) as db:
        stored = db.get(PatientImport, uuid.UUID(job["id"]))
        assert stored.rows == []  # the rows' content is not kept once written
