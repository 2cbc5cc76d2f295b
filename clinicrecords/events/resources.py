from clinicrecords.resources import Resource


class EventFeed(Resource):
    """/v1/clinics/{clinic_id}/events: any key that reached the clinic may read it (spec: no single
    permission is needed: EVENTS_FEED in clinicrecords.access.permission_map); each event is then shown only
    if the key holds that type's permission."""
