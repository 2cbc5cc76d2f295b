"""The Bulk Data flow through the real stack (the worker runs each task at once in the tests' app): kick-off,
status, manifest, files, every line a valid FHIR R4 resource."""

from tests.common.clinical import headers, sandbox
from tests.common.fhir import assert_valid_fhir
from tests.exports.flow import FHIR, kick_off, local, manifest_of, ndjson, status_url


def test_the_whole_flow_exports_every_type_the_key_reads(testapp, world):
    clinic_id, key = sandbox(world)
    response = kick_off(testapp, clinic_id, key)
    assert response.content_type == FHIR
    url = status_url(response)
    assert url.startswith(f"/v1/clinics/{clinic_id}/fhir/export-jobs/")

    answer = manifest_of(testapp, key, url)
    assert "Expires" in answer.headers
    manifest = answer.json
    assert manifest["requiresAccessToken"] is True
    assert manifest["request"].endswith(f"/v1/clinics/{clinic_id}/fhir/$export")
    assert manifest["error"] == [] and "deleted" not in manifest
    types = [entry["type"] for entry in manifest["output"]]
    assert types[0] == "Patient" and "Condition" in types
    for entry in manifest["output"]:
        served = testapp.get(local(entry["url"]), headers=headers(key))
        assert served.content_type == "application/fhir+ndjson"
        assert served.headers["ETag"]
        resources = ndjson(served)
        assert len(resources) == entry["count"] > 0
        for resource in resources:
            assert_valid_fhir(resource, entry["type"])


def test_metadata_names_the_export_operations(testapp, world):
    clinic_id, key = sandbox(world)
    response = testapp.get(f"/v1/clinics/{clinic_id}/fhir/metadata", headers=headers(key))
    statement = assert_valid_fhir(response.json, "CapabilityStatement")
    assert response.content_type == FHIR
    assert [operation.name for operation in statement.rest[0].operation] == ["export"]
    patient = [resource for resource in statement.rest[0].resource if resource.type == "Patient"][0]
    assert [operation.name for operation in patient.operation] == ["export"]


def test_an_export_since_an_instant_names_its_deleted_section(testapp, world):
    clinic_id, key = sandbox(world)
    everything = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, "?_type=Patient"))).json
    query = "?_type=Patient&_since=" + everything["transactionTime"].replace("+", "%2B")
    since = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, query))).json
    assert since["deleted"] == [] and since["output"] == []
    assert since["request"].endswith(query)
    assert since["transactionTime"] >= everything["transactionTime"]


def test_a_file_is_served_with_its_etag_and_a_conditional_get_answers_304(testapp, world):
    clinic_id, key = sandbox(world)
    [entry] = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, "?_type=Patient"))).json["output"]
    served = testapp.get(local(entry["url"]), headers=headers(key))
    assert served.headers["Content-Length"] == str(len(served.body))
    again = testapp.get(local(entry["url"]), headers=headers(key, **{"If-None-Match": served.headers["ETag"]}),
                        status=304)
    assert again.body == b""
