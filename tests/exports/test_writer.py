"""The export writer: one attempt's NDJSON files, each line the FHIR R4 resource the single read answers."""

import hashlib
import json

from clinicrecords.exports.writer import write_export
from tests.common.clinical import headers, sandbox
from tests.common.fhir import assert_valid_fhir

FHIR = "application/fhir+json"


def export(registry, clinic_id, directory, types, since=None, split_bytes=1 << 20, **options):
    return write_export(clinic_id, types=types, since=since, directory=directory, split_bytes=split_bytes,
                        base_url=f"https://api.example/v1/clinics/{clinic_id}/fhir", registry=registry, **options)


def lines_of(directory, written_file):
    content = (directory / written_file.name).read_bytes()
    assert written_file.size == len(content)
    assert written_file.etag == hashlib.sha256(content).hexdigest()
    resources = [json.loads(line) for line in content.splitlines()]
    assert written_file.count == len(resources)
    return resources


def test_patients_are_written_as_their_fhir_reads(testapp, world, registry, tmp_path):
    clinic_id, key = sandbox(world)
    written = export(registry, clinic_id, tmp_path, ["Patient"])
    [patients] = written.output
    assert (patients.type, patients.name, patients.permission) == ("Patient", "Patient-1.ndjson", "patients:read")
    resources = lines_of(tmp_path, patients)
    listed = testapp.get(f"/v1/clinics/{clinic_id}/patients?limit=100", headers=headers(key)).json["data"]
    assert [resource["id"] for resource in resources] == [patient["id"] for patient in listed]
    for resource in resources:
        assert_valid_fhir(resource, "Patient")
        read = testapp.get(f"/v1/clinics/{clinic_id}/patients/{resource['id']}", headers=headers(key, Accept=FHIR))
        assert resource == read.json
    assert sorted(str(patient_id) for patient_id in patients.patient_ids) == sorted(p["id"] for p in listed)
    assert written.error == () and written.deleted == ()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["Patient-1.ndjson"]
