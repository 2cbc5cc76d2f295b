from clinicrecords.api.render import iso

_FHIR_STATUS = {"draft": "in-progress", "completed": "finished"}
_ACT_CODE = "http://terminology.hl7.org/CodeSystem/v3-ActCode"
_FHIR_CLASS = {"ambulatory": ("AMB", "ambulatory"), "virtual": ("VR", "virtual"), "home": ("HH", "home health"),
               "emergency": ("EMER", "emergency"), "inpatient": ("IMP", "inpatient encounter")}


def is_editable_by(encounter, owner_id):
    """A draft the caller's app opened, that no clinician has edited or signed."""
    return (encounter.status == "draft" and encounter.opened_by_owner_id is not None
            and encounter.opened_by_owner_id == owner_id and encounter.touched_at is None
            and encounter.signed_at is None)


def encounter_json(encounter, request):
    return {
        "id": str(encounter.id),
        "patient_id": str(encounter.patient_id),
        "provider_id": str(encounter.provider_id) if encounter.provider_id else None,
        "status": encounter.status,
        "class": encounter.encounter_class,
        "type": encounter.type,
        "period": {"start": iso(encounter.start_at), "end": iso(encounter.end_at)},
        "reason": encounter.reason,
        "source": "api" if encounter.opened_by_owner_id else "clinic",
        "editable": is_editable_by(encounter, request.identity.owner_id),
        "created_at": iso(encounter.created_at),
        "updated_at": iso(encounter.updated_at),
    }


def encounter_fhir(encounter, request):
    code, display = _FHIR_CLASS[encounter.encounter_class]
    resource = {
        "resourceType": "Encounter",
        "id": str(encounter.id),
        "meta": {"lastUpdated": iso(encounter.updated_at)},
        "status": _FHIR_STATUS[encounter.status],
        "class": {"system": _ACT_CODE, "code": code, "display": display},
        "subject": {"reference": f"Patient/{encounter.patient_id}"},
        "period": {key: iso(value) for key, value in (("start", encounter.start_at), ("end", encounter.end_at))
                   if value},
    }
    if encounter.type:
        resource["type"] = [{"text": encounter.type}]
    if encounter.reason:
        resource["reasonCode"] = [{"text": encounter.reason}]
    if encounter.provider_id:
        resource["participant"] = [{"individual": {"reference": f"Practitioner/{encounter.provider_id}"}}]
    return resource
