from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.representations import note_touched, render_one
from clinicrecords.clinics.services import require_features
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.patients.interfaces import IPatientImportService
from clinicrecords.patients.imports.resources import PatientImportCollection, PatientImportResource
from clinicrecords.patients.imports.schemas import MAX_BYTES, PatientImportCreate


def _answer(request, collection, job, finished_status):
    """The finished job, or 202 with the job still validating when the wait bound passed. The audit trail
    names the patients its rows created by then."""
    note_touched(request, request.find_service(IPatientImportService).created_patient_ids(job))
    status = 202 if job.status == "validating" else finished_status
    location = request.resource_url(collection, str(job.id))
    return render_one(request, "patient_import", job, status=status, headers={"Location": location},
                      plain_only=True)


@view_config(context=PatientImportCollection, request_method="POST", permission=Permission.PatientsWrite,
             body_schema=PatientImportCreate, body_limit=MAX_BYTES,
             openapi={"summary": "Import patients (1 to 100 rows); answers the finished job", "status": 201,
                      "kind": "patient_import", "clinic_key_only": True,
                      "errors": ["already_imported", "payload_too_large", "plan_feature_missing"]})
def start_import(context, request):
    clinic = clinic_scope(context).clinic
    require_features(clinic, "api_addon", "data_agreement")
    service = request.find_service(IPatientImportService)
    clinic_id = clinic.id
    job = service.submit(clinic_id, request.validated["input_format"], request.validated["data"],
                         request.identity.key_id)
    if job.status == "validating":
        job = service.write_and_wait(clinic_id, job)
    return _answer(request, context, job, 201)


@view_config(context=PatientImportResource, request_method="GET", permission=Permission.PatientsWrite,
             openapi={"summary": "Read a patient import job", "kind": "patient_import", "clinic_key_only": True})
def get_import(context, request):
    return render_one(request, "patient_import", context.job, plain_only=True)


@view_config(context=PatientImportResource, name="run-valid-rows", request_method="POST",
             permission=Permission.PatientsWrite,
             openapi={"summary": "runValidPatientImportRows: write only the rows that passed validation",
                      "kind": "patient_import", "clinic_key_only": True,
                      "errors": ["import_not_runnable", "plan_feature_missing"]})
def run_valid_rows(context, request):
    clinic = clinic_scope(context).clinic
    require_features(clinic, "api_addon", "data_agreement")
    service = request.find_service(IPatientImportService)
    clinic_id = clinic.id
    job = service.write_and_wait(clinic_id, service.run_valid_rows(clinic_id, context.job))
    return _answer(request, context.__parent__, job, 200)
