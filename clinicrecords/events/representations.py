from clinicrecords.api.render import iso


def event_json(event, request=None):
    """The spec's change-feed event: the feed's entries and the webhook payload alike."""
    return {
        "id": str(event.id),
        "type": event.type,
        "clinic_id": str(event.clinic_id),
        "subject_id": str(event.subject_id),
        "seq": event.seq,
        "data": event.data,
        "created_at": iso(event.created_at),
    }
