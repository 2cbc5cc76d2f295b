from clinicrecords.api.render import iso

_FIELDS = ("type", "name", "is_primary", "source", "practice_name", "specialty", "npi", "phone", "fax", "address",
           "origin_assistant_name")


def is_editable_by(contact, owner_id):
    return contact.source == "api" and contact.added_by_owner_id is not None and contact.added_by_owner_id == owner_id


def care_provider_json(contact, request):
    document = {"id": str(contact.id), "patient_id": str(contact.patient_id)}
    document.update({name: getattr(contact, name) for name in _FIELDS})
    document["editable"] = is_editable_by(contact, request.identity.owner_id)
    document["created_at"] = iso(contact.created_at)
    document["updated_at"] = iso(contact.updated_at)
    return document
