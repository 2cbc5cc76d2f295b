"""Run by .venv-tools/fhirpy's Python (never the application's): fhirpy reads one patient and searches every
patient a page at a time, following each searchset's `next` link as fhirpy does by itself. Prints one JSON
document: {"read": resource, "searched": [resources], "pages": number of searchset pages fetched}.

    python fhirpy_run.py BASE_URL KEY PATIENT_ID PAGE_SIZE"""

import json
import sys

from fhirpy import SyncFHIRClient


def main(base_url, key, patient_id, page_size):
    client = SyncFHIRClient(base_url, authorization=f"Bearer {key}", extra_headers={"Accept": "application/fhir+json"})
    pages = []
    fetch = client._fetch_resource

    def counted(path, params=None):
        bundle = fetch(path, params)
        pages.append(bundle)
        return bundle

    client._fetch_resource = counted  # only counts the pages; fhirpy's own paging does the work
    read = client.reference("Patient", patient_id).to_resource()
    searched = client.resources("Patient").search().limit(int(page_size)).fetch_all()
    print(json.dumps({
        "read": client.dump_resource(read),
        "searched": [client.dump_resource(resource) for resource in searched],
        "pages": [dict(page) for page in pages],
    }, default=dict))


if __name__ == "__main__":
    main(*sys.argv[1:])
