"""Under the clinic's FHIR base every failure is an OperationOutcome (the Bulk Data IG: a FHIR client reads
nothing else), the shared gate's too, carrying the problem's code and the request id; the CapabilityStatement
answers without a key, alike for every well-formed clinic id. Outside the base, problem+json as before."""

import uuid

import pytest

from tests.common.clinical import headers, sandbox
from tests.common.fhir import assert_valid_fhir
from tests.exports.flow import (FHIR, KICKOFF, kick_off, local, manifest_of, ndjson, outcome_code, outcome_text,
                                status_url)


def _without_url(document):
    return {**document, "implementation": {**document["implementation"], "url": None}}


def test_the_capability_statement_answers_without_a_key_alike_for_every_clinic_id(testapp, world):
    clinic_id, _ = sandbox(world)
    known = testapp.get(f"/v1/clinics/{clinic_id}/fhir/metadata", status=200)
    unknown_id = uuid.uuid4()
    unknown = testapp.get(f"/v1/clinics/{unknown_id}/fhir/metadata", status=200)
    assert known.content_type == unknown.content_type == FHIR
    assert_valid_fhir(known.json, "CapabilityStatement")
    # Only the base URL asked for differs: nothing says whether the clinic exists.
    assert unknown.json["implementation"]["url"].endswith(f"/v1/clinics/{unknown_id}/fhir")
    assert _without_url(known.json) == _without_url(unknown.json)
    assert known.body.replace(str(clinic_id).encode(), b"") == unknown.body.replace(str(unknown_id).encode(), b"")


def test_the_capability_statement_is_the_same_with_a_bad_key_and_twice(testapp, world):
    clinic_id, key = sandbox(world)
    path = f"/v1/clinics/{clinic_id}/fhir/metadata"
    first = testapp.get(path, headers={"Authorization": "Bearer nonsense"}, status=200)
    assert testapp.get(path, headers=headers(key), status=200).body == first.body


def test_a_malformed_clinic_id_under_the_base_is_keyed_and_then_404(testapp, world):
    _, key = sandbox(world)
    assert outcome_code(testapp.get("/v1/clinics/not-a-clinic/fhir/metadata", status=401)) == "invalid_key"
    response = testapp.get("/v1/clinics/not-a-clinic/fhir/metadata", headers=headers(key), status=404)
    assert outcome_code(response) == "not_found"


def test_the_keyless_kickoff_is_401_an_outcome_with_code_and_request_id(testapp, world):
    clinic_id, _ = sandbox(world)
    response = testapp.get(f"/v1/clinics/{clinic_id}/fhir/$export", headers=KICKOFF, status=401)
    assert outcome_code(response) == "invalid_key"
    outcome = assert_valid_fhir(response.json, "OperationOutcome")
    assert outcome.issue[0].code == "login" and outcome.issue[0].severity == "error"
    assert response.headers["X-Request-Id"] in response.json["issue"][0]["diagnostics"]


def test_another_method_is_405_an_outcome_with_allow(testapp, world):
    clinic_id, key = sandbox(world)
    response = testapp.post(f"/v1/clinics/{clinic_id}/fhir/$export", headers=headers(key, **KICKOFF), status=405)
    assert outcome_code(response) == "method_not_allowed" and response.headers["Allow"] == "GET"
    assert response.json["issue"][0]["code"] == "not-supported"


def test_a_clinic_out_of_reach_is_a_404_outcome_like_one_that_does_not_exist(testapp, world):
    connected = world.connected()
    elsewhere = kick_off(testapp, world.clinic(), connected.key, status=404)
    nowhere = kick_off(testapp, uuid.uuid4(), connected.key, status=404)
    assert outcome_code(elsewhere) == outcome_code(nowhere) == "not_found"
    assert elsewhere.json["issue"][0]["details"] == nowhere.json["issue"][0]["details"]


def test_a_repeated_since_is_a_400_outcome_naming_it(testapp, world):
    clinic_id, key = sandbox(world)
    response = kick_off(testapp, clinic_id, key, "?_since=2024-01-01T00:00:00Z&_since=2024-02-01T00:00:00Z",
                        status=400)
    assert outcome_code(response) == "invalid_request"
    assert_valid_fhir(response.json, "OperationOutcome")
    assert "_since" in outcome_text(response)


def test_the_status_url_after_delete_is_a_404_outcome(testapp, world):
    clinic_id, key = sandbox(world)
    url = status_url(kick_off(testapp, clinic_id, key, "?_type=Patient"))
    cancelled = testapp.delete(url, headers=headers(key), status=202)
    assert cancelled.content_type == FHIR
    assert outcome_code(testapp.get(url, headers=headers(key), status=404)) == "not_found"
    assert outcome_code(testapp.delete(url, headers=headers(key), status=404)) == "not_found"


def test_outside_the_base_failures_stay_problem_json(testapp, world):
    clinic_id, _ = sandbox(world)
    response = testapp.get(f"/v1/clinics/{clinic_id}/patients", status=401)
    assert response.content_type == "application/problem+json" and response.json["code"] == "invalid_key"
    # A collection whose name merely starts like the base's is not under it.
    assert testapp.get(f"/v1/clinics/{clinic_id}/fhirish", status=401).content_type == "application/problem+json"


@pytest.mark.parametrize("accept", ["application/fhir+json; fhirVersion=4.0", "application/fhir+json; charset=utf-8",
                                    "application/fhir+json;fhirVersion=4.0"])
def test_the_kickoff_compares_the_media_type_not_its_parameters(testapp, world, accept):
    clinic_id, key = sandbox(world)
    kick_off(testapp, clinic_id, key, "?_type=Patient", Accept=accept)


def test_lenient_handling_lists_one_warning_outcome_per_ignored_parameter(testapp, world):
    clinic_id, key = sandbox(world)
    response = kick_off(testapp, clinic_id, key, "?_elements=id&_type=Patient,Observation&_outputFormat=text/csv",
                        Prefer="respond-async, handling=lenient")
    manifest = manifest_of(testapp, key, status_url(response)).json
    assert [entry["type"] for entry in manifest["error"]] == ["OperationOutcome"]
    outcomes = ndjson(testapp.get(local(manifest["error"][0]["url"]), headers=headers(key), status=200))
    assert len(outcomes) == 3
    for outcome in outcomes:
        assert_valid_fhir(outcome, "OperationOutcome")
        assert [issue["severity"] for issue in outcome["issue"]] == ["warning"]
    said = " ".join(outcome["issue"][0]["diagnostics"] for outcome in outcomes)
    assert "_elements" in said and "Observation" in said and "text/csv" in said


def test_a_strict_export_has_no_error_file(testapp, world):
    clinic_id, key = sandbox(world)
    manifest = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, "?_type=Patient"))).json
    assert manifest["error"] == []
