from pyramid.view import view_config

from clinicrecords.access.permissions import KEY_HOLDER
from clinicrecords.access.resources import Connections, Me
from clinicrecords.api.pagination import Page
from clinicrecords.api.representations import render_one, render_page


@view_config(context=Me, request_method="GET", permission=KEY_HOLDER,
             openapi={"summary": "Identify the calling key", "kind": "key"})
def me(context, request):
    return render_one(request, "key", request.find_service(name="reach").calling_key(request.identity),
                      plain_only=True)


@view_config(context=Connections, request_method="GET", permission=KEY_HOLDER,
             openapi={"summary": "List the clinics this key reaches now, with the scopes granted",
                      "kind": "connection", "many": True})
def connections(context, request):
    reached = request.find_service(name="reach").reachable(request.identity)
    return render_page(request, "connection", Page(reached, has_more=False, next_cursor=None))
