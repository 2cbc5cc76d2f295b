from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.patients.interfaces import IPatientService
from clinicrecords.patients.resources import PatientCollection, PatientResource
from clinicrecords.patients.schemas import PatientCreate, PatientListQuery, PatientUpdate


@view_config(context=PatientCollection, request_method="GET", permission=Permission.PatientsRead,
             query_schema=PatientListQuery,
             openapi={"summary": "List patients", "kind": "patient", "many": True})
def list_patients(context, request):
    page = request.find_service(IPatientService).list(request.query, list_cursors(request))
    return render_page(request, "patient", page)


@view_config(context=PatientResource, request_method="GET", permission=Permission.PatientsRead,
             openapi={"summary": "Read a patient", "kind": "patient"})
def get_patient(context, request):
    return render_one(request, "patient", context.patient)


@view_config(context=PatientCollection, request_method="POST", permission=Permission.PatientsWrite,
             body_schema=PatientCreate, idempotency="required",
             openapi={"summary": "Create a patient", "status": 201, "kind": "patient"})
def create_patient(context, request):
    patient = request.find_service(IPatientService).create(request.validated)
    location = request.resource_url(context, str(patient.id))
    return render_one(request, "patient", patient, status=201, headers={"Location": location}, plain_only=True)


@view_config(context=PatientResource, request_method="PATCH", permission=Permission.PatientsWrite,
             body_schema=PatientUpdate, idempotency="optional",
             openapi={"summary": "Update a patient", "kind": "patient"})
def update_patient(context, request):
    patient = request.find_service(IPatientService).update(context.patient, request.validated)
    return render_one(request, "patient", patient, plain_only=True)
