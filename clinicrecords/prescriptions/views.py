from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.prescriptions.interfaces import IPrescriptionService
from clinicrecords.prescriptions.resources import PrescriptionCollection, PrescriptionResource
from clinicrecords.prescriptions.schemas import PrescriptionListQuery


@view_config(context=PrescriptionCollection, request_method="GET", permission=Permission.MedicationsRead,
             query_schema=PrescriptionListQuery,
             openapi={"summary": "List prescriptions (read-only)", "kind": "prescription", "many": True})
def list_prescriptions(context, request):
    return render_page(request, "prescription",
                       request.find_service(IPrescriptionService).list(request.query, list_cursors(request)))


@view_config(context=PrescriptionResource, request_method="GET", permission=Permission.MedicationsRead,
             openapi={"summary": "Read a prescription", "kind": "prescription"})
def get_prescription(context, request):
    return render_one(request, "prescription", context.prescription)
