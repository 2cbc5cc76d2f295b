from pyramid.view import view_config

from clinicrecords.access.interfaces import EVENTS_FEED
from clinicrecords.api.render import json_response
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clinics.services import require_features
from clinicrecords.events.interfaces import IEventFeed
from clinicrecords.events.representations import event_json
from clinicrecords.events.resources import EventFeed
from clinicrecords.events.schemas import FeedQuery


@view_config(context=EventFeed, request_method="GET", permission=EVENTS_FEED, query_schema=FeedQuery,
             openapi={"summary": "Read the clinic's change feed", "kind": "event", "many": True,
                      "envelope": "events_next_after",
                      "errors": ["invalid_request", "sandbox_only", "plan_feature_missing"]})
def read_feed(context, request):
    require_features(clinic_scope(context).clinic, "api_access")
    events, next_after = request.find_service(IEventFeed).page(request.query["after_seq"], request.query["limit"])
    return json_response({"events": [event_json(event) for event in events], "next_after": next_after})
