"""fhirpy, a general Python FHIR client, reads every sandbox patient from the clinic's FHIR base; every
resource it receives is valid R4. (Search, and fhirpy's paging through `next`, once the base offers it.)"""

import json

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.common.fhir import assert_valid_fhir
from tests.fhir_clients.conftest import run, tool


def test_fhirpy_reads_every_sandbox_patient(sandbox, fhir_base):
    _, key = sandbox
    python = tool("fhirpy") / "python"
    script = __file__.replace("test_fhirpy.py", "fhirpy_run.py")
    answer = json.loads(run([python, script, fhir_base, key, *SANDBOX_PATIENT_IDS]).stdout)

    assert [patient["id"] for patient in answer["patients"]] == [str(patient_id) for patient_id in SANDBOX_PATIENT_IDS]
    for patient in answer["patients"]:
        assert_valid_fhir(patient, "Patient")
