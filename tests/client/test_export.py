"""The client's `export(clinic_id, types=..., since=...)` against the real application: kick-off, polling as
Retry-After asks, every output file read; the manifest's transactionTime as the next export's since."""

import httpx
import pytest

from clinicrecords_client import Client, Forbidden, InvalidRequest, NotFound
from tests.common.fhir import assert_valid_fhir


@pytest.fixture
def api(app, world):
    workspace_id, clinic_id = world.workspace()
    with Client("http://localhost", world.key(workspace_id=workspace_id, mode="test"),
                transport=httpx.WSGITransport(app=app)) as client:
        yield client, clinic_id


def test_export_yields_every_resource_of_the_types_asked(api):
    client, clinic_id = api
    resources = list(client.export(clinic_id, types=["Patient", "Condition"]))
    assert {resource["resourceType"] for resource in resources} == {"Patient", "Condition"}
    for resource in resources:
        assert_valid_fhir(resource)
    patients = client.clinic(clinic_id).patients.list(limit=100)["data"]
    assert {r["id"] for r in resources if r["resourceType"] == "Patient"} == {p["id"] for p in patients}
    since = client.last_manifest["transactionTime"]
    assert list(client.export(clinic_id, types=["Patient"], since=since)) == []
    # Patient/$export: the compartment, and the clinicians and payers its records name.
    assert {"Patient", "Practitioner", "Organization"} <= {r["resourceType"] for r in client.export(clinic_id,
                                                                                                     patients=True)}


def test_export_failures_raise_typed_errors(api):
    client, clinic_id = api
    with pytest.raises(InvalidRequest) as refused:
        list(client.export(clinic_id, types=["Observation"]))
    assert refused.value.code == "not-supported" and "Observation" in refused.value.detail
    assert client.clinic(clinic_id).fhir.metadata()["resourceType"] == "CapabilityStatement"
    with pytest.raises(Forbidden) as elsewhere:
        list(client.export("00000000-0000-4000-8000-000000000001", types=["Patient"]))  # not its sandbox
    # The OperationOutcome's code and the request id, as problem+json gave them.
    assert elsewhere.value.code == "sandbox_only" and elsewhere.value.request_id.startswith("req_")
    assert elsewhere.value.request_id in elsewhere.value.detail


def test_a_lenient_export_reports_what_it_ignored_as_warnings(api):
    client, clinic_id = api
    resources = list(client.export(clinic_id, types=["Patient", "Observation"], lenient=True))
    assert {resource["resourceType"] for resource in resources} == {"Patient"}
    [warning] = client.last_outcomes
    assert warning["issue"][0]["severity"] == "warning" and "Observation" in warning["issue"][0]["diagnostics"]


def test_fhir_reads_return_what_the_export_wrote(api):
    client, clinic_id = api
    patients = [resource for resource in client.export(clinic_id, types=["Patient"])]
    fhir = client.clinic(clinic_id).fhir
    assert fhir.read_patient(patients[0]["id"]) == patients[0] == fhir.read("Patient", patients[0]["id"])
    with pytest.raises(NotFound) as missing:
        fhir.read_condition("00000000-0000-4000-8000-000000000001")
    assert missing.value.code == "not_found"


def test_fhir_search_pages_through_next_and_searches_by_form(api):
    client, clinic_id = api
    fhir = client.clinic(clinic_id).fhir
    exported = {resource["id"] for resource in client.export(clinic_id, types=["Patient"])}
    assert {resource["id"] for resource in fhir.search_all("Patient", {"_count": 2})} == exported
    first = fhir.search_patient({"_count": 2})
    assert first["type"] == "searchset" and len(first["entry"]) == 2 and fhir.next_page(first)["type"] == "searchset"
    [quill] = fhir.search_patient_by_form({"family": "quill"})["entry"]
    assert quill["resource"]["name"][0]["family"] == "Quill"
    with pytest.raises(InvalidRequest):
        fhir.search_patient({"colour": "blue"})
    lenient = fhir.search_patient({"colour": "blue"}, lenient=True)
    assert lenient["entry"][-1]["search"]["mode"] == "outcome"
