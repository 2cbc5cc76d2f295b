"""Run by .venv-tools/fhirpy's Python (never the application's): fhirpy reads each patient named, searches
every patient a page at a time (fhirpy follows each searchset's `next` link by itself), searches patients by
family name and a patient's conditions, as a partner's FHIR code reads a server. Prints one JSON document:
{"read": [resources], "searched": [resources], "pages": [bundles fetched], "by_family": [resources],
"conditions": [resources]}.

    python fhirpy_run.py BASE_URL KEY PAGE_SIZE FAMILY PATIENT_ID..."""

import json
import sys

from fhirpy import SyncFHIRClient


def main(base_url, key, page_size, family, *patient_ids):
    client = SyncFHIRClient(base_url, authorization=f"Bearer {key}", extra_headers={"Accept": "application/fhir+json"})
    pages = []
    fetch = client._fetch_resource

    def counted(path, params=None):
        bundle = fetch(path, params)
        pages.append(bundle)
        return bundle

    read = [client.reference("Patient", patient_id).to_resource() for patient_id in patient_ids]
    client._fetch_resource = counted  # only keeps the pages: fhirpy's own paging does the work
    searched = client.resources("Patient").limit(int(page_size)).fetch_all()
    client._fetch_resource = fetch
    by_family = client.resources("Patient").search(family=family).fetch()
    conditions = client.resources("Condition").search(patient=patient_ids[0]).fetch_all()
    dump = client.dump_resource
    print(json.dumps({"read": [dump(resource) for resource in read],
                      "searched": [dump(resource) for resource in searched],
                      "pages": [dict(page) for page in pages],
                      "by_family": [dump(resource) for resource in by_family],
                      "conditions": [dump(resource) for resource in conditions]}, default=dict))


if __name__ == "__main__":
    main(*sys.argv[1:])
