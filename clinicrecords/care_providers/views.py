from pyramid.response import Response
from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import note_touched, render_one, render_page
from clinicrecords.care_providers.interfaces import ICareProviderService
from clinicrecords.care_providers.resources import CareProviderCollection, CareProviderResource
from clinicrecords.care_providers.schemas import CareProviderCreate, CareProviderListQuery, CareProviderUpdate


def _service(request):
    return request.find_service(ICareProviderService)


@view_config(context=CareProviderCollection, request_method="GET", permission=Permission.CareProvidersRead,
             query_schema=CareProviderListQuery,
             openapi={"summary": "List outside care providers, with source and editable", "kind": "care_provider",
                      "many": True})
def list_care_providers(context, request):
    return render_page(request, "care_provider", _service(request).list(request.query, list_cursors(request)))


@view_config(context=CareProviderResource, request_method="GET", permission=Permission.CareProvidersRead,
             openapi={"summary": "Read an outside care provider", "kind": "care_provider"})
def get_care_provider(context, request):
    return render_one(request, "care_provider", context.contact)


@view_config(context=CareProviderCollection, request_method="POST", permission=Permission.CareProvidersWrite,
             body_schema=CareProviderCreate, idempotency="required",
             openapi={"summary": "Add an outside care provider (saved at once)", "status": 201,
                      "kind": "care_provider", "errors": ["idempotency_key_conflict", "idempotency_key_reused"]})
def add_care_provider(context, request):
    contact = _service(request).add(request.validated, request.identity.owner_id)
    location = request.resource_url(context, str(contact.id))
    return render_one(request, "care_provider", contact, status=201, headers={"Location": location},
                      plain_only=True)


@view_config(context=CareProviderResource, request_method="PATCH", permission=Permission.CareProvidersWrite,
             body_schema=CareProviderUpdate, idempotency="optional",
             openapi={"summary": "Change a contact this app added", "kind": "care_provider",
                      "errors": ["care_provider_clinic_managed"]})
def update_care_provider(context, request):
    contact = _service(request).update(context.contact, request.validated, request.identity.owner_id)
    return render_one(request, "care_provider", contact, plain_only=True)


@view_config(context=CareProviderResource, request_method="DELETE", permission=Permission.CareProvidersWrite,
             idempotency="optional", openapi={"summary": "Remove a contact this app added", "status": 204,
                      "errors": ["care_provider_clinic_managed"]})
def delete_care_provider(context, request):
    _service(request).delete(context.contact, request.identity.owner_id)
    note_touched(request, [context.contact.patient_id])  # the removed contact's patient, for the audit trail
    return Response(status=204)
