"""cumulus-etl 3.14's `export`, the Cumulus project's Bulk Data client, exports a sandbox clinic with the key as
its bearer token; every resource it wrote is valid R4.

cumulus-etl 3.14 asks for its own 17 types whatever the CapabilityStatement offers, without `Prefer:
handling=lenient`, and the Bulk Data IG has a server refuse a type it does not offer then (OperationOutcome,
400): it is told the types with `--type`, as docs/fhir.md says."""

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.fhir_clients.conftest import assert_all_valid, ndjson_resources, run, tool

# cumulus-etl's types (its `--task help`) that this base exports.
CUMULUS_TYPES_OFFERED = {"AllergyIntolerance", "Condition", "Encounter", "MedicationRequest", "Organization",
                         "Patient", "Practitioner", "ServiceRequest"}


def test_cumulus_etl_exports_a_sandbox_with_a_bearer_token(sandbox, fhir_base, tmp_path):
    _, key = sandbox
    token_file = tmp_path / "token"
    token_file.write_text(key)
    output = tmp_path / "export"

    run([tool("cumulus-etl") / "cumulus-etl", "export", "--bearer-token", token_file,
                "--type", ",".join(sorted(CUMULUS_TYPES_OFFERED)), fhir_base, output],
               timeout=600)

    exported = ndjson_resources(output)
    assert {"Patient", "AllergyIntolerance", "Condition", "Encounter", "MedicationRequest", "Practitioner",
            "ServiceRequest"} <= exported.keys()
    assert {str(patient_id) for patient_id in SANDBOX_PATIENT_IDS} <= {p["id"] for p in exported["Patient"]}
    assert_all_valid(exported)
