"""fhirpy, a general Python FHIR client, reads a patient and searches every patient a page at a time through
the searchset's `next` links; every resource it receives is valid R4."""

import json

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.common.fhir import assert_valid_fhir
from tests.fhir_clients.conftest import run, tool

PAGE_SIZE = 2


def test_fhirpy_reads_and_pages_through_a_search(sandbox, fhir_base):
    _, key = sandbox
    python = tool("fhirpy") / "python"
    script = __file__.replace("test_fhirpy.py", "fhirpy_run.py")
    answer = json.loads(run([python, script, fhir_base, key, SANDBOX_PATIENT_IDS[0], PAGE_SIZE]).stdout)

    assert answer["read"]["id"] == str(SANDBOX_PATIENT_IDS[0])
    assert_valid_fhir(answer["read"], "Patient")
    searched = answer["searched"]
    for resource in searched:
        assert_valid_fhir(resource, "Patient")
    assert {str(patient_id) for patient_id in SANDBOX_PATIENT_IDS} <= {resource["id"] for resource in searched}
    assert len({resource["id"] for resource in searched}) == len(searched)
    # The read answers once; the search's pages follow: more than one, each a searchset of at most PAGE_SIZE.
    pages = [page for page in answer["pages"] if page.get("resourceType") == "Bundle"]
    assert len(pages) >= 2
    for page in pages:
        assert_valid_fhir(page, "Bundle")
        assert page["type"] == "searchset"
        assert len(page.get("entry", [])) <= PAGE_SIZE
    assert all(any(link["relation"] == "next" for link in page["link"]) for page in pages[:-1])
