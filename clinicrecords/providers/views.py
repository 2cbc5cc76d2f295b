from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.providers.interfaces import IProviderService
from clinicrecords.providers.resources import ProviderCollection, ProviderResource


@view_config(context=ProviderCollection, request_method="GET", permission=Permission.ProvidersRead,
             query_schema=UpdatedSinceListQuery,
             openapi={"summary": "List the clinic's clinicians", "kind": "provider", "many": True})
def list_providers(context, request):
    providers = request.find_service(IProviderService).list(request.query, list_cursors(request))
    return render_page(request, "provider", providers)


@view_config(context=ProviderResource, request_method="GET", permission=Permission.ProvidersRead,
             openapi={"summary": "Read a clinician", "kind": "provider"})
def get_provider(context, request):
    return render_one(request, "provider", context.provider)
