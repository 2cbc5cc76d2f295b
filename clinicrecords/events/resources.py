from pyramid.authorization import Allow, Authenticated

from clinicrecords.access.permissions import EVENTS_FEED
from clinicrecords.resources import Resource


class EventFeed(Resource):
    """/v1/clinics/{clinic_id}/events: any key that reached the clinic may read it (spec: no single
    permission is needed); each event is then shown only if the key holds that type's permission."""

    __acl__ = ((Allow, Authenticated, EVENTS_FEED),)
