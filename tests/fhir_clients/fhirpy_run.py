"""Run by .venv-tools/fhirpy's Python (never the application's): fhirpy reads each patient named, and follows
each one's first encounter reference, as a FHIR client reads a server. Prints one JSON document:
{"patients": [resources]}.

    python fhirpy_run.py BASE_URL KEY PATIENT_ID...

Searching with fhirpy (paging through `next`) joins this once the base offers search (docs/fhir.md)."""

import json
import sys

from fhirpy import SyncFHIRClient


def main(base_url, key, *patient_ids):
    client = SyncFHIRClient(base_url, authorization=f"Bearer {key}", extra_headers={"Accept": "application/fhir+json"})
    patients = [client.reference("Patient", patient_id).to_resource() for patient_id in patient_ids]
    print(json.dumps({"patients": [client.dump_resource(patient) for patient in patients]}, default=dict))


if __name__ == "__main__":
    main(*sys.argv[1:])
