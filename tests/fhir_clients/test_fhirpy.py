"""fhirpy, a general Python FHIR client, reads every sandbox patient from the clinic's FHIR base, searches every
patient a page at a time through the searchset's `next` links, and searches by name and by patient; every
resource it receives is valid R4."""

import json

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.common.fhir import assert_valid_fhir
from tests.fhir_clients.conftest import run, tool

PAGE_SIZE = 2


def test_fhirpy_reads_searches_and_pages_through_next(sandbox, fhir_base):
    _, key = sandbox
    python = tool("fhirpy") / "python"
    script = __file__.replace("test_fhirpy.py", "fhirpy_run.py")
    answer = json.loads(run([python, script, fhir_base, key, str(PAGE_SIZE), "quill", *SANDBOX_PATIENT_IDS]).stdout)
    sandbox_ids = [str(patient_id) for patient_id in SANDBOX_PATIENT_IDS]

    assert [patient["id"] for patient in answer["read"]] == sandbox_ids
    searched = answer["searched"]
    assert set(sandbox_ids) <= {resource["id"] for resource in searched}
    assert len({resource["id"] for resource in searched}) == len(searched)
    # More than one page, each a searchset of at most PAGE_SIZE, each but the last with a next link.
    pages = answer["pages"]
    assert len(pages) >= 3
    for page in pages:
        assert_valid_fhir(page, "Bundle")
        assert page["type"] == "searchset" and len(page.get("entry", [])) <= PAGE_SIZE
    assert all(any(link["relation"] == "next" for link in page["link"]) for page in pages[:-1])
    assert not any(link["relation"] == "next" for link in pages[-1]["link"])
    assert [patient["id"] for patient in answer["by_family"]] == [sandbox_ids[0]]
    assert answer["conditions"]
    assert {condition["subject"]["reference"] for condition in answer["conditions"]} == {f"Patient/{sandbox_ids[0]}"}
    for resource in (*answer["read"], *searched, *answer["by_family"], *answer["conditions"]):
        assert_valid_fhir(resource, resource["resourceType"])
