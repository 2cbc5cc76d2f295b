"""The plain and FHIR R4 shapes of an outside care provider. Neither ever carries the clinic's notes.

FHIR: a `Practitioner` (the contact is a clinician), linked to the patient who names it by the extension
`care-provider-patient` (valueReference `Patient/{id}`): R4 has no Practitioner element pointing at a patient
(docs/decisions/0051-outside-care-providers-fhir.md).
"""

from clinicrecords.api.render import iso

_FIELDS = ("type", "name", "is_primary", "source", "practice_name", "specialty", "npi", "phone", "fax", "address",
           "origin_assistant_name")
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
EXTENSION = "urn:clinicrecords:fhir:extension:"
PATIENT_LINK_URL = EXTENSION + "care-provider-patient"


def is_editable_by(contact, owner_id):
    return contact.source == "api" and contact.added_by_owner_id is not None and contact.added_by_owner_id == owner_id


def care_provider_json(contact, request):
    document = {"id": str(contact.id), "patient_id": str(contact.patient_id)}
    document.update({name: getattr(contact, name) for name in _FIELDS})
    document["editable"] = is_editable_by(contact, request.identity.owner_id)
    document["created_at"] = iso(contact.created_at)
    document["updated_at"] = iso(contact.updated_at)
    return document


def care_provider_fhir(contact, request):
    editable = is_editable_by(contact, request.identity.owner_id)
    extensions = [
        {"url": PATIENT_LINK_URL, "valueReference": {"reference": f"Patient/{contact.patient_id}", "type": "Patient"}},
        {"url": EXTENSION + "care-provider-type", "valueString": contact.type},
        {"url": EXTENSION + "care-provider-primary", "valueBoolean": contact.is_primary},
        {"url": EXTENSION + "care-provider-source", "valueString": contact.source},
        {"url": EXTENSION + "care-provider-editable", "valueBoolean": editable},
    ]
    optional = (("care-provider-specialty", contact.specialty), ("care-provider-practice", contact.practice_name),
                ("origin-assistant-name", contact.origin_assistant_name))
    for name, value in optional:
        if value:
            extensions.append({"url": EXTENSION + name, "valueString": value})
    resource = {"resourceType": "Practitioner", "id": str(contact.id), "meta": {"lastUpdated": iso(contact.updated_at)},
                "extension": extensions}
    if contact.npi:
        resource["identifier"] = [{"system": NPI_SYSTEM, "value": contact.npi}]
    resource["name"] = [{"text": contact.name}]
    telecom = [{"system": system, "value": value, "use": "work"}
               for system, value in (("phone", contact.phone), ("fax", contact.fax)) if value]
    if telecom:
        resource["telecom"] = telecom
    if contact.address:
        resource["address"] = [{"use": "work", "text": contact.address}]
    return resource
