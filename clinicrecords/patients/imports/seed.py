"""A finished sandbox import (fixed id), so the job shape can be read."""

from clinicrecords.patients.imports.models import PatientImport
from clinicrecords.patients.imports.schemas import SANDBOX_IMPORT_ID
from clinicrecords.patients.imports.services import content_hash, empty_counts


def seed_patient_imports(db, clinic):
    db.add(PatientImport(id=SANDBOX_IMPORT_ID, status="needs_review", input_format="json_array", row_count=2,
                         last_processed_row=0, counts=empty_counts(failed=1),
                         row_errors=[{"row": 2, "field": "birth_date", "reason": "Not a valid date."}],
                         rows=[], content_hash=content_hash("json_array", "sandbox-seed"), started_by="key"))
    db.flush()
