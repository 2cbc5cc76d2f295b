from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.scheduling.interfaces import IAppointmentService
from clinicrecords.scheduling.resources import AppointmentCollection, AppointmentResource
from clinicrecords.scheduling.schemas import AppointmentCreate, AppointmentListQuery


def _service(request):
    return request.find_service(IAppointmentService)


@view_config(context=AppointmentCollection, request_method="GET", permission=Permission.AppointmentsRead,
             query_schema=AppointmentListQuery,
             openapi={"summary": "List appointments in start order (from, to, patient, clinician, status)",
                      "kind": "appointment", "many": True})
def list_appointments(context, request):
    return render_page(request, "appointment", _service(request).list(request.query, list_cursors(request)))


@view_config(context=AppointmentResource, request_method="GET", permission=Permission.AppointmentsRead,
             openapi={"summary": "Read an appointment", "kind": "appointment"})
def get_appointment(context, request):
    return render_one(request, "appointment", context.appointment)


@view_config(context=AppointmentCollection, request_method="POST", permission=Permission.AppointmentsWrite,
             body_schema=AppointmentCreate, idempotency="required",
             openapi={"summary": "Book a 30-minute slot with a clinician, or with any eligible one",
                      "status": 201, "kind": "appointment",
                      "errors": ["slot_taken", "out_of_office", "no_provider_available", "referral_not_scheduled",
                                 "idempotency_key_conflict", "idempotency_key_reused"]})
def book_appointment(context, request):
    appointment = _service(request).book(request.validated, request.identity.owner_id)
    location = request.resource_url(context, str(appointment.id))
    return render_one(request, "appointment", appointment, status=201, headers={"Location": location},
                      plain_only=True)


@view_config(context=AppointmentResource, name="cancel", request_method="POST",
             permission=Permission.AppointmentsWrite, idempotency="optional",
             openapi={"summary": "Cancel an appointment this app booked (cancelling twice is harmless)",
                      "kind": "appointment", "errors": ["appointment_clinic_managed"]})
def cancel_appointment(context, request):
    appointment = _service(request).cancel(context.appointment, request.identity.owner_id)
    return render_one(request, "appointment", appointment, plain_only=True)
