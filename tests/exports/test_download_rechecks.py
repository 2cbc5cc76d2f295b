"""A download re-checks what the clinic hides from keys, as it re-checks the read permission: the lines of
patients restricted since the export was written, and of encounters marked sensitive since, are left out; the
ETag and Content-Length follow what is served, and the audit trail names only the patients served."""

import uuid

from sqlalchemy import select

from clinicrecords.audit.models import AuditEntry
from clinicrecords.encounters.models import Encounter
from tests.common.clinical import clinic_db, headers, restrict, sandbox
from tests.exports.flow import kick_off, local, manifest_of, ndjson, status_url


def _patient_of(resource):
    return resource["subject"]["reference"].split("/")[1]


def _audited(world, clinic_id, request_id):
    with clinic_db(world, clinic_id) as db:
        return {record_id for entry in db.scalars(select(AuditEntry).where(AuditEntry.request_id == request_id))
                for record_id in entry.record_ids}


def test_a_download_leaves_out_patients_restricted_and_encounters_marked_sensitive_since(testapp, world):
    clinic_id, key = sandbox(world)
    manifest = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, "?_type=Patient,Encounter")))
    urls = {entry["type"]: local(entry["url"]) for entry in manifest.json["output"]}
    before = {kind: testapp.get(url, headers=headers(key), status=200) for kind, url in urls.items()}
    patients, encounters = ndjson(before["Patient"]), ndjson(before["Encounter"])
    sensitive = encounters[0]
    hidden = next(patient["id"] for patient in patients if patient["id"] != _patient_of(sensitive))
    restrict(world, clinic_id, uuid.UUID(hidden))
    with clinic_db(world, clinic_id) as db:
        db.get(Encounter, uuid.UUID(sensitive["id"])).sensitive = True

    after = testapp.get(urls["Patient"], headers=headers(key), status=200)
    served = ndjson(after)
    assert [patient["id"] for patient in served] == [patient["id"] for patient in patients if patient["id"] != hidden]
    assert int(after.headers["Content-Length"]) == len(after.body)
    assert after.headers["ETag"] != before["Patient"].headers["ETag"]
    # A client holding the file as it was gets what is served now, not 304.
    testapp.get(urls["Patient"], headers=headers(key, **{"If-None-Match": before["Patient"].headers["ETag"]}),
                status=200)
    testapp.get(urls["Patient"], headers=headers(key, **{"If-None-Match": after.headers["ETag"]}), status=304)
    audited = _audited(world, clinic_id, after.headers["X-Request-Id"])
    assert hidden not in audited and {patient["id"] for patient in served} <= audited

    encounters_after = ndjson(testapp.get(urls["Encounter"], headers=headers(key), status=200))
    assert sensitive["id"] not in [encounter["id"] for encounter in encounters_after]
    assert hidden not in [_patient_of(encounter) for encounter in encounters_after]
    assert [encounter["id"] for encounter in encounters_after] == [
        encounter["id"] for encounter in encounters
        if encounter["id"] != sensitive["id"] and _patient_of(encounter) != hidden]


def test_a_file_nothing_was_hidden_from_since_is_served_as_written(testapp, world):
    clinic_id, key = sandbox(world)
    manifest = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, "?_type=Patient")))
    [entry] = manifest.json["output"]
    first = testapp.get(local(entry["url"]), headers=headers(key), status=200)
    again = testapp.get(local(entry["url"]), headers=headers(key), status=200)
    assert again.body == first.body and again.headers["ETag"] == first.headers["ETag"]
    assert len(ndjson(first)) == entry["count"]
