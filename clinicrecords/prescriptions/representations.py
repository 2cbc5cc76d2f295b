from clinicrecords.api.render import iso

_FHIR_STATUS = {"active": "active", "on_hold": "on-hold", "completed": "completed", "cancelled": "cancelled",
                "stopped": "stopped"}
SOURCE_EXTENSION = "urn:clinicrecords:fhir:prescription-source"


def prescription_json(prescription, request):
    return {
        "id": str(prescription.id),
        "patient_id": str(prescription.patient_id),
        "drug": prescription.drug,
        "dose": prescription.dose,
        "frequency": prescription.frequency,
        "status": prescription.status,
        "source": prescription.source,
        "written_on": iso(prescription.written_on),
        "start_date": iso(prescription.start_date),
        "end_date": iso(prescription.end_date),
        "created_at": iso(prescription.created_at),
        "updated_at": iso(prescription.updated_at),
    }


def prescription_fhir(prescription, request):
    resource = {
        "resourceType": "MedicationRequest",
        "id": str(prescription.id),
        "meta": {"lastUpdated": iso(prescription.updated_at)},
        "extension": [{"url": SOURCE_EXTENSION, "valueString": prescription.source}],
        "status": _FHIR_STATUS[prescription.status],
        "intent": "order",
        "medicationCodeableConcept": {"text": prescription.drug},
        "subject": {"reference": f"Patient/{prescription.patient_id}"},
        "authoredOn": iso(prescription.written_on),
        "dosageInstruction": [{"text": f"{prescription.dose}, {prescription.frequency}",
                               "timing": {"code": {"text": prescription.frequency}},
                               "doseAndRate": [{"type": {"text": "ordered"}}],
                               "patientInstruction": prescription.dose}],
    }
    period = {key: iso(value) for key, value in (("start", prescription.start_date),
                                                 ("end", prescription.end_date)) if value}
    if period:
        resource["dispenseRequest"] = {"validityPeriod": period}
    return resource
