"""Writing an accepted import, row by row, on Huey.

Each row is one transaction: the job row is locked, the next row after `last_processed_row` is written with
its patient and its ledger entry, and `last_processed_row` moves, all committed together. A worker that dies
mid-row loses only that row's uncommitted transaction; the job stays `validating` with its run registered in
`control.patient_import_runs`, and a restarted worker (startup hook) or the periodic sweep resumes it after
the last committed row. Patients get ids derived from the job and row number, so even two writers racing on
one job could never create a row's patient twice (they also serialise on the job row's lock).
"""

import datetime
import hashlib
import json
import logging
import time
import uuid

from huey import crontab
from sqlalchemy import func, select, update
from sqlalchemy.exc import DataError, IntegrityError

from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.patients.imports.models import PatientImport, PatientImportRow, PatientImportRun
from clinicrecords.patients.imports.services import finish
from clinicrecords.patients.models import Patient
from clinicrecords.patients.schemas import PatientCreate
from clinicrecords.patients.services import PatientService, visible_patients
from clinicrecords.settings import app_settings
from clinicrecords.tasks import huey, periodic_task, prepared_request, task

log = logging.getLogger(__name__)

WRITE_REFUSED = "The database refused this row when it was written; it and the rows after it were not written."
INTERRUPTED = "The import was interrupted too many times; the rows after last_processed_row were not written."


def row_hash(data):
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
                          ).hexdigest()


def _commit(request):
    request.tm.commit()
    request.tm.begin()


def _fail(db, clinic_id, job, row, reason):
    remaining = sum(1 for entry in job.rows if entry["row"] > job.last_processed_row)
    job.row_errors = [*job.row_errors, {"row": row, "field": "", "reason": reason}]
    job.counts = {**job.counts, "failed": job.counts["failed"] + remaining}
    finish(db, clinic_id, job, "failed")


def _write_row(request, import_id, entry):
    """The row's patient (or its skip) and its ledger entry; returns the outcome."""
    db = request.db
    digest = row_hash(entry["data"])
    if db.scalar(select(PatientImportRow.row).where(PatientImportRow.row_hash == digest,
                                                    PatientImportRow.patient_id.is_not(None)).limit(1)) is not None:
        db.add(PatientImportRow(import_id=import_id, row=entry["row"], row_hash=digest,
                                outcome="skipped_already_imported"))
        db.flush()
        return "skipped_already_imported"
    data = PatientCreate().load(entry["data"])
    # Possible duplicate: a visible patient with the same family name (case-insensitive) and birth date.
    duplicate = db.scalar(visible_patients().with_only_columns(Patient.id).where(
        func.lower(Patient.family_name) == data["family_name"].strip().lower(),
        Patient.birth_date == data["birth_date"]).limit(1))
    patient = PatientService(db).create(data, patient_id=uuid.uuid5(import_id, str(entry["row"])))
    outcome = "flagged_duplicate" if duplicate is not None else "created"
    db.add(PatientImportRow(import_id=import_id, row=entry["row"], row_hash=digest, outcome=outcome,
                            patient_id=patient.id))
    db.flush()
    return outcome


def _locked_job(db, import_id):
    return db.scalar(select(PatientImport).where(PatientImport.id == import_id).with_for_update()
                     .execution_options(populate_existing=True))


def write_rows(request, clinic_id, import_id):
    """Write the job's remaining rows, one transaction each. Safe to run twice, concurrently, or after a crash."""
    db = request.db
    bind_to_clinic(db, clinic_id)
    settings = app_settings(request.registry).patient_imports
    delay = settings.row_delay_seconds
    job = _locked_job(db, import_id)
    if job is None or job.status != "validating":
        return
    run = db.get(PatientImportRun, import_id)
    if run is not None and run.resumes > settings.max_resumes:
        _fail(db, clinic_id, job, job.last_processed_row + 1, INTERRUPTED)
        _commit(request)
        return
    entries = list(job.rows)  # read once: each row's transaction below reads only the job's small columns
    _commit(request)
    while True:
        state = db.execute(select(PatientImport.status, PatientImport.last_processed_row, PatientImport.counts)
                           .where(PatientImport.id == import_id).with_for_update()).one()
        if state.status != "validating":
            return
        pending = [entry for entry in entries if entry["row"] > state.last_processed_row]
        if not pending:
            finish(db, clinic_id, _locked_job(db, import_id), "succeeded")
            _commit(request)
            return
        entry = pending[0]
        if delay:
            time.sleep(delay)  # test-only setting: lets a test end the worker mid-import
        try:
            outcome = _write_row(request, import_id, entry)
        except (IntegrityError, DataError):
            log.warning("patient import %s: row %s refused by the database", import_id, entry["row"])
            request.tm.abort()
            request.tm.begin()
            _fail(db, clinic_id, _locked_job(db, import_id), entry["row"], WRITE_REFUSED)
            _commit(request)
            return
        counts = dict(state.counts)
        if outcome == "skipped_already_imported":
            counts["skipped_already_imported"] += 1
        else:
            counts["created"] += 1
            counts["flagged_duplicate"] += outcome == "flagged_duplicate"
        db.execute(update(PatientImport).where(PatientImport.id == import_id).values(
            last_processed_row=entry["row"], counts=counts, updated_at=func.now()))
        db.execute(update(PatientImportRun).where(PatientImportRun.import_id == import_id)
                   .values(heartbeat_at=func.now()))
        _commit(request)


@task(retries=3, retry_delay=2)
def write_patient_import(request, clinic_id, import_id):
    write_rows(request, uuid.UUID(clinic_id), uuid.UUID(import_id))


def resume_interrupted_imports(request, now=None):
    """Queue again every import whose writer stopped beating (its worker died). Returns how many."""
    db = request.db
    stale_after = datetime.timedelta(seconds=app_settings(request.registry).patient_imports.stale_after_seconds)
    now = now or db.scalar(select(func.now()))
    runs = db.scalars(select(PatientImportRun).where(PatientImportRun.heartbeat_at <= now - stale_after)
                      .order_by(PatientImportRun.created_at).with_for_update(skip_locked=True)).all()
    for run in runs:
        run.resumes += 1
        run.heartbeat_at = now
        request.enqueue(write_patient_import, str(run.clinic_id), str(run.import_id))
    db.flush()
    return len(runs)


@periodic_task(crontab(minute="*"))
def sweep_interrupted_imports(request):
    resume_interrupted_imports(request)


@huey.on_startup()
def resume_imports_on_worker_start():
    with prepared_request() as request:
        with request.tm:
            count = resume_interrupted_imports(request)
    if count:
        log.info("resumed %d interrupted patient import(s)", count)
