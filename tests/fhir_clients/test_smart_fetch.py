"""smart-fetch, SMART's Bulk Data client, exports a sandbox clinic on its defaults (every type it knows that
the CapabilityStatement offers, then hydration: each referenced resource read one by one), then again for
what changed since (`--since auto --since-mode updated`: `_since` on `meta.lastUpdated`). Every resource it
wrote is valid R4, and no hydration read failed (smart-fetch counts such failures but still exits 0)."""

import json

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.fhir_clients.conftest import assert_all_valid, ndjson_resources, run, tool

# smart-fetch's default types that this base exports (it skips the others, as the CapabilityStatement says).
EXPORTED_DEFAULT_TYPES = {"Patient", "AllergyIntolerance", "Condition", "Encounter", "MedicationRequest",
                          "ServiceRequest"}


def _smart_fetch(fhir_base, token_file, output, *extra):
    done = run([tool("smart-fetch") / "smart-fetch", "export", "--fhir-url", fhir_base, "--bearer-token",
                token_file, *extra, output], timeout=600)
    failed = [section.strip().splitlines()[0] for section in done.stdout.split("─" * 80)[1:]
              if "Fatal errors" in section or "Retry errors" in section]
    assert not failed, f"smart-fetch's reads failed in: {failed}\n{done.stdout[-6000:]}"
    return done


def _practitioners_named(resources_by_type):
    named = set()
    for encounter in resources_by_type.get("Encounter", []):
        for participant in encounter.get("participant", []):
            named.add(participant["individual"]["reference"])
    for request in resources_by_type.get("MedicationRequest", []):
        if "requester" in request:
            named.add(request["requester"]["reference"])
    return {reference for reference in named if reference.startswith("Practitioner/")}


def _kickoff_urls(folder):
    urls = []
    for log in folder.glob("*/log.ndjson"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event["eventId"] == "kickoff":
                urls.append(event["eventDetail"]["exportUrl"])
    return urls


def test_smart_fetch_exports_a_sandbox_on_its_defaults_then_what_changed_since(sandbox, fhir_base, tmp_path):
    _, key = sandbox
    token_file = tmp_path / "token"
    token_file.write_text(key)
    output = tmp_path / "export"

    _smart_fetch(fhir_base, token_file, output)
    exported = ndjson_resources(output)
    assert EXPORTED_DEFAULT_TYPES <= exported.keys()
    assert {str(patient_id) for patient_id in SANDBOX_PATIENT_IDS} <= {p["id"] for p in exported["Patient"]}
    named = _practitioners_named(exported)
    assert named, "the seed's encounters name their practitioners"
    hydrated = {f"Practitioner/{practitioner['id']}" for practitioner in exported.get("Practitioner", [])}
    assert named <= hydrated
    # Hydration searched each clinician's roles (`PractitionerRole?practitioner=`) and found them.
    roles = {role["practitioner"]["reference"] for role in exported.get("PractitionerRole", [])}
    assert roles and roles <= hydrated
    assert_all_valid(exported)
    [first_kickoff] = _kickoff_urls(output)
    assert "_since=" not in first_kickoff

    _smart_fetch(fhir_base, token_file, output, "--since", "auto", "--since-mode", "updated")
    second_kickoff = (set(_kickoff_urls(output)) - {first_kickoff}).pop()
    assert "_since=" in second_kickoff
    assert_all_valid(ndjson_resources(output))
