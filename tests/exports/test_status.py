"""The status URL and the files: polling (X-Progress, Retry-After, 429 when polled sooner), cancellation,
expiry and its sweep, and the key rules: the same key only, the read permission again at download, a test
key's sandbox, an organization key's reach, every file audited naming its patients."""

import datetime
import uuid

from sqlalchemy import insert, select, update

from clinicrecords.audit.models import AuditEntry
from clinicrecords.audit.services import MAX_RECORD_IDS
from clinicrecords.exports.models import ExportJob
from clinicrecords.exports.storage import job_directory, root_of
from clinicrecords.exports.tasks import remove_expired_exports
from clinicrecords.patients.models import Patient
from tests.common.clinical import add_patient, clinic_db, headers, sandbox
from tests.exports.conftest import run_queued
from tests.exports.flow import (FHIR, export, kick_off, local, manifest_of, ndjson, outcome_code, outcome_text,
                                status_url)


def _job_id(url):
    return uuid.UUID(url.rsplit("/", 1)[1])


def test_a_running_export_answers_202_with_progress_and_429_when_polled_sooner(queued_app, world):
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(queued_app, clinic_id, key, "?_type=Patient"))
    first = queued_app.get(url, headers=headers(key), status=202)
    assert first.headers["X-Progress"] == "queued" and int(first.headers["Retry-After"]) > 0
    sooner = queued_app.get(url, headers=headers(key), status=429)
    assert sooner.content_type == FHIR
    assert outcome_code(sooner) == "export_polled_too_soon" and int(sooner.headers["Retry-After"]) > 0
    run_queued()
    manifest = manifest_of(queued_app, key, url).json
    assert [entry["type"] for entry in manifest["output"]] == ["Patient"]


def test_delete_cancels_and_removes_the_files(testapp, world, registry):
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(testapp, clinic_id, key, "?_type=Patient"))
    [entry] = manifest_of(testapp, key, url).json["output"]
    directory = job_directory(root_of(registry), clinic_id, _job_id(url))
    assert any(directory.rglob("*.ndjson"))
    response = testapp.delete(url, headers=headers(key), status=202)
    assert response.json["resourceType"] == "OperationOutcome"
    assert not directory.exists()
    assert outcome_code(testapp.get(url, headers=headers(key), status=404)) == "not_found"
    assert outcome_code(testapp.get(local(entry["url"]), headers=headers(key), status=404)) == "not_found"


def test_a_cancelled_export_still_queued_is_never_written(queued_app, world, registry):
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(queued_app, clinic_id, key, "?_type=Patient"))
    queued_app.delete(url, headers=headers(key), status=202)
    run_queued()
    assert not job_directory(root_of(registry), clinic_id, _job_id(url)).exists()
    queued_app.get(url, headers=headers(key), status=404)


def test_an_expired_export_is_not_found_and_the_sweep_removes_it(testapp, world, registry):
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(testapp, clinic_id, key, "?_type=Patient"))
    [entry] = manifest_of(testapp, key, url).json["output"]
    job_id = _job_id(url)
    with world.db() as db:
        db.execute(update(ExportJob).where(ExportJob.id == job_id).values(
            expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)))
    testapp.get(url, headers=headers(key), status=404)
    testapp.get(local(entry["url"]), headers=headers(key), status=404)
    with world.request() as request:
        assert remove_expired_exports(request) >= 1
    with world.db() as db:
        assert db.get(ExportJob, job_id) is None
    assert not job_directory(root_of(registry), clinic_id, job_id).exists()


def test_the_manifest_expires_in_24_hours(testapp, world):
    clinic_id, key = sandbox(world)
    answer = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, "?_type=Patient")))
    expires = datetime.datetime.strptime(answer.headers["Expires"], "%a, %d %b %Y %H:%M:%S GMT")
    left = expires.replace(tzinfo=datetime.UTC) - datetime.datetime.now(datetime.UTC)
    assert datetime.timedelta(hours=23) < left <= datetime.timedelta(hours=24)


def test_another_key_gets_404_for_the_status_and_the_files(testapp, world):
    workspace_id, clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    other = world.key(workspace_id=workspace_id, mode="test")
    url = status_url(kick_off(testapp, clinic_id, key, "?_type=Patient"))
    [entry] = manifest_of(testapp, key, url).json["output"]
    testapp.get(url, headers=headers(other), status=404)
    testapp.delete(url, headers=headers(other), status=404)
    testapp.get(local(entry["url"]), headers=headers(other), status=404)
    testapp.get(local(entry["url"]), headers=headers(key), status=200)


def test_a_permission_revoked_after_kickoff_serves_nothing_of_its_type(testapp, world):
    connected = world.connected(scopes={"patients:read", "conditions:read"})
    add_patient(world, connected.clinic_id)
    url = status_url(kick_off(testapp, connected.clinic_id, connected.key, "?_type=Patient"))
    [entry] = manifest_of(testapp, connected.key, url).json["output"]
    world.grant(connected.workspace_id, connected.clinic_id, {"conditions:read"})
    refused = testapp.get(local(entry["url"]), headers=connected.headers, status=403)
    assert outcome_code(refused) == "scope_missing" and "patients:read" in outcome_text(refused)


def test_a_test_key_exports_only_its_sandbox(testapp, world):
    connected = world.connected()
    test_key = world.key(workspace_id=connected.workspace_id, mode="test")
    refused = kick_off(testapp, connected.clinic_id, test_key, status=403)
    assert outcome_code(refused) == "sandbox_only"
    kick_off(testapp, connected.sandbox_clinic_id, test_key)


def test_an_organization_key_exports_only_clinics_it_reaches(testapp, world):
    connected = world.connected()
    add_patient(world, connected.clinic_id)
    url = status_url(kick_off(testapp, connected.clinic_id, connected.key, "?_type=Patient"))
    [entry] = manifest_of(testapp, connected.key, url).json["output"]
    elsewhere = world.clinic()
    assert outcome_code(kick_off(testapp, elsewhere, connected.key, status=404)) == "not_found"
    world.revoke_connection(connected.workspace_id, connected.clinic_id)
    testapp.get(url, headers=connected.headers, status=404)
    testapp.get(local(entry["url"]), headers=connected.headers, status=404)


def test_an_export_of_one_clinic_is_not_found_under_another(testapp, world):
    connected = world.connected()
    add_patient(world, connected.clinic_id)
    second = world.clinic()
    world.grant(connected.workspace_id, second)
    url = status_url(kick_off(testapp, connected.clinic_id, connected.key, "?_type=Patient"))
    [entry] = manifest_of(testapp, connected.key, url).json["output"]
    elsewhere = str(connected.clinic_id), str(second)
    testapp.get(url.replace(*elsewhere), headers=connected.headers, status=404)
    testapp.get(local(entry["url"]).replace(*elsewhere), headers=connected.headers, status=404)
    testapp.get(local(entry["url"]), headers=connected.headers, status=200)


def _entries(world, clinic_id, route_part):
    with clinic_db(world, clinic_id) as db:
        return [entry for entry in db.scalars(select(AuditEntry).order_by(AuditEntry.at)) if route_part in entry.route]


def test_every_file_served_is_audited_naming_its_patients(testapp, world):
    clinic_id, key = sandbox(world)
    found, manifest = export(testapp, clinic_id, key, "?_type=Patient,Condition")
    entries = _entries(world, clinic_id, "/fhir/export-files/")
    assert len(entries) == len(manifest["output"])
    patients = {resource["id"] for resource in found["Patient"]}
    [patient_entry] = [entry for entry in entries if patients <= set(entry.record_ids)]
    assert patient_entry.status == 200 and patient_entry.method == "GET"
    conditions = {resource["subject"]["reference"].split("/")[1] for resource in found["Condition"]}
    assert any(conditions <= set(entry.record_ids) for entry in entries)


def test_a_file_of_more_patients_than_an_entry_holds_is_audited_in_several_entries(testapp, world):
    clinic_id, key = sandbox(world)
    with clinic_db(world, clinic_id) as db:
        db.execute(insert(Patient), [{"id": uuid.uuid4(), "given_name": "Bulk", "family_name": f"Patient{n}",
                                      "birth_date": datetime.date(1980, 1, 1)} for n in range(MAX_RECORD_IDS + 10)])
    found, manifest = export(testapp, clinic_id, key, "?_type=Patient")
    patients = {resource["id"] for resource in found["Patient"]}
    assert len(patients) > MAX_RECORD_IDS
    entries = _entries(world, clinic_id, "/fhir/export-files/")
    assert len(entries) >= 2 and len({entry.request_id for entry in entries}) == 1
    assert all(len(entry.record_ids) <= MAX_RECORD_IDS for entry in entries)
    assert patients <= {record_id for entry in entries for record_id in entry.record_ids}


def test_polling_and_downloads_count_as_requests(make_app, world):
    import webtest

    app = webtest.TestApp(make_app(**{"ratelimit.test_per_minute": "3"}), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(app, clinic_id, key, "?_type=Patient"))
    [entry] = app.get(url, headers=headers(key), status=200).json["output"]
    assert ndjson(app.get(local(entry["url"]), headers=headers(key), status=200))
    assert outcome_code(app.get(local(entry["url"]), headers=headers(key), status=429)) == "rate_limited"
    assert outcome_code(app.get(url, headers=headers(key), status=429)) == "rate_limited"


def test_an_export_failing_in_every_attempt_answers_an_operation_outcome(make_app, world, tmp_path):
    import webtest

    not_a_directory = tmp_path / "a-file"
    not_a_directory.write_text("")
    app = webtest.TestApp(make_app(**{"exports.path": str(not_a_directory)}),
                          extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(app, clinic_id, key, "?_type=Patient"))
    failed = app.get(url, headers=headers(key), status=500)
    assert failed.content_type == "application/fhir+json"
    assert failed.json["resourceType"] == "OperationOutcome" and "3 attempts" in failed.json["issue"][0]["diagnostics"]
    with world.db() as db:
        assert db.get(ExportJob, _job_id(url)).attempt == 3
