from pyramid.view import view_config

from clinicrecords.access.interfaces import IReach
from clinicrecords.access.permission_map import live_access_blocked
from clinicrecords.access.permissions import KEY_HOLDER
from clinicrecords.access.representations import BLOCKED_SCHEMA, blocked_json
from clinicrecords.access.resources import Connections, Me
from clinicrecords.api.pagination import ListQuery, list_cursors
from clinicrecords.api.representations import render_one, render_page


@view_config(context=Me, request_method="GET", permission=KEY_HOLDER,
             openapi={"summary": "Identify the calling key", "kind": "key"})
def me(context, request):
    return render_one(request, "key", request.find_service(IReach).calling_key(request.identity),
                      plain_only=True)


@view_config(context=Connections, request_method="GET", permission=KEY_HOLDER, query_schema=ListQuery,
             openapi={"summary": "List the clinics this key reaches now, with the scopes granted",
                      "kind": "connection", "many": True, "envelope_properties": {"blocked": BLOCKED_SCHEMA},
                      "description": "A live organization key whose workspace cannot reach real clinics now "
                                     "(verification absent or lapsed, sandbox plan, API Terms of Use not "
                                     "accepted) lists none, whatever connections exist; `blocked` says why with "
                                     "the code a clinic's route would answer. `blocked` is null otherwise."})
def connections(context, request):
    page = request.find_service(IReach).reachable(request.identity, request.query, list_cursors(request))
    blocked = blocked_json(live_access_blocked(request.identity))
    return render_page(request, "connection", page, extra={"blocked": blocked})
