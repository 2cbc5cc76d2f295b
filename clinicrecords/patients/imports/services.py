"""Patient imports: every row is validated as a real create (PatientCreate) before anything is written; the
rows are then written by a Huey task (clinicrecords.patients.imports.tasks), one committed row at a time.

Statuses: validating (accepted, being written), succeeded, needs_review (some row invalid, nothing written),
failed (a row the validation accepted was refused by the database, or the writing was interrupted more than
`patient_imports.max_resumes` times; rows written before stay). A valid-only run ends succeeded.
"""

import hashlib
import json
import time
import uuid

from sqlalchemy import delete, func, or_, select
from zope.interface import implementer

from clinicrecords.api.problems import Problem
from clinicrecords.api.schemas import ValidationError, error_pointers
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.db import locks
from clinicrecords.events.services import emit
from clinicrecords.patients.imports.formats import RowProblem, read_rows
from clinicrecords.patients.imports.models import PatientImport, PatientImportRow, PatientImportRun
from clinicrecords.patients.schemas import PatientCreate
from clinicrecords.patients.interfaces import IPatientImportService
from clinicrecords.settings import app_settings

_row_schema = PatientCreate()


def content_hash(input_format, data):
    canonical = json.dumps({"input_format": input_format, "data": data}, sort_keys=True, separators=(",", ":"),
                           default=str, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def row_errors_of(row_number, candidate):
    """[] for a valid row; else {row, field, reason} entries that never carry the failing value."""
    if isinstance(candidate, RowProblem):
        return [{"row": row_number, "field": candidate.field, "reason": candidate.reason}]
    try:
        _row_schema.load(candidate)
    except ValidationError as exc:
        return [{"row": row_number, "field": error["pointer"].lstrip("/").replace("/", "."),
                 "reason": error["message"]} for error in error_pointers(exc.messages)]
    return []


def empty_counts(failed=0):
    return {"created": 0, "flagged_duplicate": 0, "skipped_already_imported": 0, "failed": failed}


@implementer(IPatientImportService)
class PatientImportService:
    """`enqueue` queues a task after the commit (request.enqueue) and `writer` is the task that writes an
    accepted job's rows (the package's tasks build on this module, so they are handed in); `transaction` is the
    transaction manager that write_and_wait commits so the task can see the job."""

    def __init__(self, db, wait_seconds, enqueue=None, writer=None, transaction=None):
        self.db = db
        self.wait_seconds = wait_seconds
        self.enqueue = enqueue
        self.writer = writer
        self.transaction = transaction

    def get(self, import_id):
        return self.db.get(PatientImport, import_id)

    def submit(self, clinic_id, input_format, data, key_id):
        rows = read_rows(input_format, data)
        errors, valid = [], []
        for number, candidate in rows:
            found = row_errors_of(number, candidate)
            errors.extend(found)
            if not found:
                valid.append({"row": number, "data": candidate})
        digest = content_hash(input_format, data)
        # Identical submissions queue here until the first commits, so both cannot pass the check below.
        locks.hold(self.db, "import", clinic_id, digest)
        earlier = self.db.scalar(select(PatientImport.id).where(
            PatientImport.content_hash == digest,
            or_(PatientImport.status != "needs_review", PatientImport.valid_only_run_at.is_not(None))).limit(1))
        if earlier is not None:
            raise Problem("already_imported", f"This content was already imported by import {earlier}; read it "
                          f"with GET /v1/clinics/{clinic_id}/patient-imports/{earlier}.")
        invalid_rows = len({error["row"] for error in errors})
        job = PatientImport(id=uuid.uuid4(), status="needs_review" if errors else "validating",
                            input_format=input_format, row_count=len(rows), last_processed_row=0,
                            counts=empty_counts(failed=invalid_rows), row_errors=errors, rows=valid,
                            content_hash=digest, started_by="key", started_by_key_id=key_id)
        self.db.add(job)
        if job.status == "validating":
            self.db.add(PatientImportRun(import_id=job.id, clinic_id=clinic_id))
        self.db.flush()
        if job.status == "needs_review":
            announce_finished(self.db, clinic_id, job)
        return job

    def run_valid_rows(self, clinic_id, job):
        """runValidPatientImportRows: write only the rows that passed, of a job waiting for review."""
        job = self.db.scalar(select(PatientImport).where(PatientImport.id == job.id).with_for_update())
        if job.status != "needs_review" or job.valid_only_run_at is not None:
            raise Problem("import_not_runnable", f"Only an import in needs_review can run its valid rows; this one "
                          f"is {job.status}.")
        if not job.rows:
            raise Problem("import_not_runnable", "No row of this import passed validation: fix and resend it.")
        job.status = "validating"
        job.valid_only_run_at = func.now()
        self.db.add(PatientImportRun(import_id=job.id, clinic_id=clinic_id))
        self.db.flush()
        self.db.refresh(job)
        return job

    def created_patient_ids(self, job):
        """The patients the job's rows have created so far (flagged duplicates included)."""
        return self.db.scalars(select(PatientImportRow.patient_id).where(
            PatientImportRow.import_id == job.id, PatientImportRow.patient_id.is_not(None))).all()

    def write_and_wait(self, clinic_id, job):
        """Commit the accepted job, let the task write it (after the commit), and wait for it within the bound.

        Returns the job as it stands then: finished, or still validating when the bound passed.
        """
        self.enqueue(self.writer, str(clinic_id), str(job.id))
        self.transaction.commit()
        self.transaction.begin()
        deadline = time.monotonic() + self.wait_seconds
        pause = 0.02
        while True:
            job = self.db.execute(select(PatientImport).where(PatientImport.id == job.id)
                                  .execution_options(populate_existing=True)).scalar_one()
            if job.status != "validating" or time.monotonic() >= deadline:
                return job
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.25)


def finish(db, clinic_id, job, status):
    job.status = status
    job.rows = []
    db.execute(delete(PatientImportRun).where(PatientImportRun.import_id == job.id))
    announce_finished(db, clinic_id, job)


def announce_finished(db, clinic_id, job):
    """patient_import.finished, addressed to the clinic (only its own keys import)."""
    emit(db, clinic_id, "patient_import.finished", job.id, {"id": str(job.id), "status": job.status},
         audience_id=clinic_id)


def patient_import_service_factory(writer):
    """The service's factory, its accepted jobs written by the task `writer`."""
    def factory(context, request):
        wait_seconds = app_settings(request.registry).patient_imports.wait_seconds
        return PatientImportService(clinic_scope(context).db, wait_seconds, enqueue=request.enqueue,
                                    writer=writer, transaction=request.tm)
    return factory
