"""Kick-offs (Bulk Data IG v2): the headers, the parameters, the types a key may ask for, Idempotency-Key and
the cap on running exports. Every failure answers an OperationOutcome, the key's too (its code inside)."""

import pytest

from clinicrecords.providers.schemas import ROLES
from clinicrecords.providers.services import ProviderService
from tests.common.clinical import clinic_db, headers, sandbox
from tests.common.fhir import assert_valid_fhir
from tests.exports.conftest import run_queued
from tests.exports.flow import FHIR, KICKOFF, export, kick_off, manifest_of, outcome_code, outcome_text, status_url


def _outcome(response):
    assert response.content_type == FHIR
    assert response.json["resourceType"] == "OperationOutcome"
    return " ".join(issue["diagnostics"] for issue in response.json["issue"])


@pytest.mark.parametrize("missing", ["Accept", "Prefer"])
def test_a_kickoff_without_the_async_headers_is_400(testapp, world, missing):
    clinic_id, key = sandbox(world)
    sent = {name: value for name, value in KICKOFF.items() if name != missing}
    response = testapp.get(f"/v1/clinics/{clinic_id}/fhir/$export", headers=headers(key, **sent), status=400)
    assert missing in _outcome(response)


def test_a_kickoff_accepting_only_plain_json_is_400(testapp, world):
    clinic_id, key = sandbox(world)
    response = kick_off(testapp, clinic_id, key, status=400, Accept="application/json")
    assert "Accept" in _outcome(response)


@pytest.mark.parametrize("query, named", [
    ("?_elements=id", "_elements"),
    ("?_typeFilter=Patient%3Factive%3Dtrue", "_typeFilter"),
    ("?_outputFormat=text/csv", "text/csv"),
    ("?_since=yesterday", "yesterday"),
    ("?_since=2024-01-01", "2024-01-01"),  # a date, not an instant
    ("?_type=Observation", "Observation"),
])
def test_an_unsupported_parameter_or_value_is_400(testapp, world, query, named):
    clinic_id, key = sandbox(world)
    assert named in _outcome(kick_off(testapp, clinic_id, key, query, status=400))


def test_handling_lenient_ignores_what_is_not_supported(testapp, world):
    clinic_id, key = sandbox(world)
    response = kick_off(testapp, clinic_id, key, "?_elements=id&_type=Patient,Observation&_outputFormat=text/csv",
                        Prefer="respond-async, handling=lenient")
    manifest = manifest_of(testapp, key, status_url(response)).json
    assert {entry["type"] for entry in manifest["output"]} == {"Patient"}


@pytest.mark.parametrize("output_format", ["application/fhir%2Bndjson", "application/ndjson", "ndjson"])
def test_the_output_format_and_its_short_forms_are_accepted(testapp, world, output_format):
    clinic_id, key = sandbox(world)
    kick_off(testapp, clinic_id, key, f"?_outputFormat={output_format}&_type=Patient")


def test_a_type_the_key_cannot_read_is_403_scope_missing(testapp, world):
    connected = world.connected(scopes={"patients:read"})
    response = kick_off(testapp, connected.clinic_id, connected.key, "?_type=Patient,Condition", status=403)
    assert response.content_type == FHIR
    assert outcome_code(response) == "scope_missing" and "Condition" in outcome_text(response)


def test_without_type_the_export_holds_the_types_the_key_reads(testapp, world):
    connected = world.connected(scopes={"patients:read", "conditions:read", "allergies:write"})
    found, manifest = export(testapp, connected.clinic_id, connected.key)
    assert {entry["type"] for entry in manifest["output"]} <= {"Patient", "Condition"}
    assert manifest["request"].endswith("/fhir/$export")


def test_a_key_reading_no_exported_type_is_403(testapp, world):
    connected = world.connected(scopes={"allergies:write"})
    assert outcome_code(kick_off(testapp, connected.clinic_id, connected.key, status=403)) == "scope_missing"


def test_patient_export_writes_the_compartment_and_the_practitioners_and_payers_it_names(testapp, world):
    clinic_id, key = sandbox(world)
    with clinic_db(world, clinic_id) as db:  # a clinician no encounter names
        unnamed = ProviderService(db).add("Una", "Named", ROLES[0]).id
    found, manifest = export(testapp, clinic_id, key, level="Patient/")
    named = {reference["reference"] for encounter in found["Encounter"] for participant in encounter["participant"]
             for reference in [participant["individual"]]}
    named |= {payor["reference"] for coverage in found["Coverage"] for payor in coverage["payor"]}
    # The care providers (linked to their patient by an extension's valueReference) are the patients' own.
    clinicians = {f"Practitioner/{practitioner['id']}" for practitioner in found["Practitioner"]
                  if not any("valueReference" in extension for extension in practitioner["extension"])}
    payers = {f"Organization/{organization['id']}" for organization in found["Organization"]}
    assert clinicians | payers == named and clinicians and payers
    assert f"Practitioner/{unnamed}" not in clinicians
    for organization in found["Organization"]:
        assert_valid_fhir(organization, "Organization")
    system, everything = export(testapp, clinic_id, key, "?_type=Practitioner,Organization")
    assert {entry["type"] for entry in everything["output"]} == {"Practitioner", "Organization"}
    assert str(unnamed) in {practitioner["id"] for practitioner in system["Practitioner"]}


def test_the_system_export_offers_practitioners(testapp, world):
    clinic_id, key = sandbox(world)
    found, manifest = export(testapp, clinic_id, key, "?_type=Practitioner")
    assert {entry["type"] for entry in manifest["output"]} == {"Practitioner"}


def test_a_kickoff_is_idempotent_under_idempotency_key(testapp, world):
    clinic_id, key = sandbox(world)
    first = kick_off(testapp, clinic_id, key, "?_type=Patient", **{"Idempotency-Key": "export-1"})
    again = kick_off(testapp, clinic_id, key, "?_type=Patient", **{"Idempotency-Key": "export-1"})
    assert again.headers["Content-Location"] == first.headers["Content-Location"]
    assert again.headers["Idempotent-Replayed"] == "true"
    other = kick_off(testapp, clinic_id, key, "?_type=Condition", status=409, **{"Idempotency-Key": "export-1"})
    assert outcome_code(other) == "idempotency_key_conflict"


def test_a_key_has_at_most_a_few_exports_running_per_clinic(queued_app, world):
    clinic_id, key = sandbox(world)
    for _ in range(3):  # exports.max_running_per_key
        kick_off(queued_app, clinic_id, key, "?_type=Patient")
    refused = kick_off(queued_app, clinic_id, key, "?_type=Patient", status=429)
    assert refused.content_type == FHIR
    assert outcome_code(refused) == "too_many_exports" and int(refused.headers["Retry-After"]) > 0
    # Another key of the same workspace has its own allowance; once the exports finish, the key may again.
    run_queued()
    kick_off(queued_app, clinic_id, key, "?_type=Patient")


def test_a_kickoff_needs_a_valid_key(testapp, world):
    clinic_id, _ = sandbox(world)
    response = testapp.get(f"/v1/clinics/{clinic_id}/fhir/$export", headers={**KICKOFF, "Authorization": "Bearer x"},
                           status=401)
    assert outcome_code(response) == "invalid_key"


@pytest.mark.parametrize("accept", ["*/*", "AAA", "null", "application/fhir+json;q=0"])
def test_a_kickoff_must_name_fhir_json_in_accept(testapp, world, accept):
    clinic_id, key = sandbox(world)
    assert "Accept" in _outcome(kick_off(testapp, clinic_id, key, status=400, Accept=accept))


def test_a_head_request_starts_no_export(testapp, world):
    clinic_id, key = sandbox(world)
    response = testapp.head(f"/v1/clinics/{clinic_id}/fhir/$export", headers=headers(key, **KICKOFF), status=405)
    assert response.headers["Allow"] == "GET" and "Content-Location" not in response.headers
