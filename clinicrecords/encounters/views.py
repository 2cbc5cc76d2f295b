from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.encounters.interfaces import IEncounterService
from clinicrecords.encounters.resources import EncounterCollection, EncounterResource
from clinicrecords.encounters.schemas import EncounterCreate, EncounterListQuery, EncounterUpdate


@view_config(context=EncounterCollection, request_method="GET", permission=Permission.EncountersRead,
             query_schema=EncounterListQuery,
             openapi={"summary": "List encounters (sensitive notes are not listed)", "kind": "encounter",
                      "many": True})
def list_encounters(context, request):
    encounters = request.find_service(IEncounterService).list(request.query, list_cursors(request))
    return render_page(request, "encounter", encounters)


@view_config(context=EncounterResource, request_method="GET", permission=Permission.EncountersRead,
             openapi={"summary": "Read an encounter", "kind": "encounter"})
def get_encounter(context, request):
    return render_one(request, "encounter", context.encounter)


@view_config(context=EncounterCollection, request_method="POST", permission=Permission.EncountersWrite,
             body_schema=EncounterCreate, idempotency="required",
             openapi={"summary": "Open a draft encounter (a blank note)", "status": 201, "kind": "encounter",
                      "errors": ["unknown_field", "idempotency_key_conflict", "idempotency_key_reused"]})
def open_encounter(context, request):
    encounter = request.find_service(IEncounterService).open_draft(request.validated, request.identity.owner_id)
    location = request.resource_url(context, str(encounter.id))
    return render_one(request, "encounter", encounter, status=201, headers={"Location": location},
                      plain_only=True)


@view_config(context=EncounterResource, request_method="PATCH", permission=Permission.EncountersWrite,
             body_schema=EncounterUpdate, idempotency="optional",
             openapi={"summary": "Change type, start, end or reason of a draft this app opened",
                      "kind": "encounter", "errors": ["unknown_field", "note_not_editable"]})
def update_encounter(context, request):
    encounter = request.find_service(IEncounterService).update_draft(context.encounter, request.validated,
                                                                     request.identity.owner_id)
    return render_one(request, "encounter", encounter, plain_only=True)
