from pyramid.traversal import find_interface
from pyramid.view import view_config

from clinicrecords.access.permissions import EVENTS_FEED
from clinicrecords.api.render import json_response
from clinicrecords.clinics.plans import require_features
from clinicrecords.clinics.resources import ClinicResource
from clinicrecords.events.representations import event_json
from clinicrecords.events.resources import EventFeed
from clinicrecords.events.schemas import FeedQuery


@view_config(context=EventFeed, request_method="GET", permission=EVENTS_FEED, query_schema=FeedQuery,
             openapi={"summary": "Read the clinic's change feed", "kind": "event", "many": True,
                      "envelope": "events_next_after",
                      "errors": ["invalid_request", "sandbox_only", "plan_feature_missing"]})
def read_feed(context, request):
    clinic = find_interface(context, ClinicResource)
    require_features(clinic.clinic, "api_access")
    events, next_after = request.find_service(name="events.feed").page(
        clinic.granted, request.identity.owner_id, request.query["after_seq"], request.query["limit"])
    return json_response({"events": [event_json(event) for event in events], "next_after": next_after})
