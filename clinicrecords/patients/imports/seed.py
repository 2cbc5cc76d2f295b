"""A sandbox import waiting for review (fixed id): row 1 passed, row 2 did not. Its shape can be read and its
valid row run (`run-valid-rows`), as the reference's samples do."""

from clinicrecords.patients.imports.models import PatientImport
from clinicrecords.patients.imports.schemas import SANDBOX_IMPORT_ID
from clinicrecords.patients.imports.services import content_hash, empty_counts


def seed_patient_imports(db, clinic):
    db.add(PatientImport(id=SANDBOX_IMPORT_ID, status="needs_review", input_format="json_array", row_count=2,
                         last_processed_row=0, counts=empty_counts(failed=1),
                         row_errors=[{"row": 2, "field": "birth_date", "reason": "Not a valid date."}],
                         rows=[{"row": 1, "data": {"given_name": "Sami", "family_name": "Okafor",
                                                   "birth_date": "1990-05-17",
                                                   "external_id": "SANDBOX-IMPORT-1"}}],
                         content_hash=content_hash("json_array", "sandbox-seed"), started_by="key"))
    db.flush()
