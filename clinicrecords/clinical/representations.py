"""Plain JSON and FHIR R4 shapes of allergies, conditions, reported medicines and referrals.

FHIR extensions carry `valueString`. An item accepted automatically reads verification status unconfirmed
until a clinician reviews it, and carries the accepted-by extension.
"""

from clinicrecords.api.render import iso

ACCEPTED_BY_URL = "urn:clinicrecords:fhir:extension:accepted-by"
REFERRAL_STATUS_URL = "urn:clinicrecords:fhir:extension:referral-status"
STATUS_REASON_URL = "urn:clinicrecords:fhir:extension:status-reason"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
ICD10CM = "http://hl7.org/fhir/sid/icd-10-cm"
SNOMED = "http://snomed.info/sct"


def _str(value):
    return str(value) if value is not None else None


def _item(record):
    return {
        "id": str(record.id),
        "patient_id": str(record.patient_id),
        "verification_status": record.verification_status,
        "accepted_by": record.accepted_by,
        "reviewed_at": iso(record.reviewed_at),
        "reviewed_by_staff_id": _str(record.reviewed_by_staff_id),
        "origin_assistant_name": record.origin_assistant_name,
        "note": record.note,
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
    }


def allergy_json(allergy, request):
    document = dict(_item(allergy), entry=allergy.entry, clinical_status=allergy.clinical_status,
                    substance=({"text": allergy.substance_text, "rxnorm": allergy.substance_rxnorm}
                               if allergy.entry != "no_known_allergies" else None),
                    category=allergy.category, criticality=allergy.criticality, type=allergy.type,
                    reactions=allergy.reactions, onset_date=iso(allergy.onset_date))
    if allergy.entry == "legacy_text":
        # A name from the clinic's plain allergy list: read-only, so it has no id to read or change.
        del document["id"]
    return document


def condition_json(condition, request):
    return dict(_item(condition), icd10_code=condition.icd10_code, display=condition.display,
                clinical_status=condition.clinical_status, onset_date=iso(condition.onset_date),
                abatement_date=iso(condition.abatement_date))


def medication_statement_json(statement, request):
    return dict(_item(statement), medication={"text": statement.medication_text, "rxnorm": statement.medication_rxnorm},
                status=statement.status, dosage_text=statement.dosage_text,
                effective_start=iso(statement.effective_start), effective_end=iso(statement.effective_end))


def sees_status_reason(referral, request):
    identity = getattr(request, "identity", None)
    return identity is not None and referral.sender_owner_id == identity.owner_id


def referral_json(referral, request):
    return dict(_item(referral), status=referral.status,
                status_reason=referral.status_reason if sees_status_reason(referral, request) else None,
                reason_code=referral.reason_code, reason_text=referral.reason_text, specialty=referral.specialty,
                priority=referral.priority)


# FHIR R4


def _coding(system, code, display=None):
    coding = {"system": system, "code": code}
    if display:
        coding["display"] = display
    return coding


def _fhir_base(resource_type, record):
    resource = {"resourceType": resource_type}
    if not (resource_type == "AllergyIntolerance" and record.entry == "legacy_text"):
        resource["id"] = str(record.id)
    resource["meta"] = {"lastUpdated": iso(record.updated_at)}
    if record.accepted_by:
        resource["extension"] = [{"url": ACCEPTED_BY_URL, "valueString": record.accepted_by}]
    return resource


def _verification(system, status):
    return {"coding": [_coding(system, status.replace("_", "-"))]}


def _notes(record):
    return [{"text": record.note}] if record.note else None


def _clean(resource):
    return {name: value for name, value in resource.items() if value not in (None, [], {})}


_ALLERGY_CLINICAL = "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical"
_ALLERGY_VERIFICATION = "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification"


def allergy_fhir(allergy, request):
    resource = _fhir_base("AllergyIntolerance", allergy)
    if allergy.entry == "no_known_allergies":
        code = {"coding": [_coding(SNOMED, "716186003", "No known allergy")], "text": "No known allergies"}
    else:
        codings = [_coding(RXNORM, allergy.substance_rxnorm)] if allergy.substance_rxnorm else []
        code = {"coding": codings, "text": allergy.substance_text}
    status = allergy.clinical_status
    verification = allergy.verification_status if allergy.entry != "legacy_text" else "unconfirmed"
    resource.update(_clean({
        # FHIR carries no clinical status on an entered-in-error record.
        "clinicalStatus": {"coding": [_coding(_ALLERGY_CLINICAL, status)]} if status != "entered_in_error" else None,
        "verificationStatus": _verification(_ALLERGY_VERIFICATION, verification),
        "type": allergy.type,
        "category": allergy.category,
        "criticality": allergy.criticality.replace("_", "-") if allergy.criticality else None,
        "code": _clean(code),
        "patient": {"reference": f"Patient/{allergy.patient_id}"},
        "onsetDateTime": iso(allergy.onset_date),
        "recordedDate": iso(allergy.created_at),
        "note": _notes(allergy),
        "reaction": [_clean({"manifestation": [{"text": m} for m in reaction["manifestation"]],
                             "description": reaction.get("description")}) for reaction in allergy.reactions],
    }))
    return resource


_CONDITION_CLINICAL = "http://terminology.hl7.org/CodeSystem/condition-clinical"
_CONDITION_VERIFICATION = "http://terminology.hl7.org/CodeSystem/condition-ver-status"


def condition_fhir(condition, request):
    resource = _fhir_base("Condition", condition)
    status = condition.clinical_status
    resource.update(_clean({
        "clinicalStatus": {"coding": [_coding(_CONDITION_CLINICAL, status)]} if status != "entered_in_error" else None,
        "verificationStatus": _verification(_CONDITION_VERIFICATION, condition.verification_status),
        "code": {"coding": [_coding(ICD10CM, condition.icd10_code, condition.display)], "text": condition.display},
        "subject": {"reference": f"Patient/{condition.patient_id}"},
        "onsetDateTime": iso(condition.onset_date),
        "abatementDateTime": iso(condition.abatement_date),
        "recordedDate": iso(condition.created_at),
        "note": _notes(condition),
    }))
    return resource


_MEDICATION_STATUS = {"active": "active", "completed": "completed", "stopped": "stopped", "intended": "intended",
                      "on_hold": "on-hold", "not_taken": "not-taken", "entered_in_error": "entered-in-error"}


def medication_statement_fhir(statement, request):
    resource = _fhir_base("MedicationStatement", statement)
    codings = [_coding(RXNORM, statement.medication_rxnorm)] if statement.medication_rxnorm else []
    period = _clean({"start": iso(statement.effective_start), "end": iso(statement.effective_end)})
    if statement.verification_status == "unconfirmed":
        resource.setdefault("extension", []).append(
            {"url": "urn:clinicrecords:fhir:extension:verification-status", "valueString": "unconfirmed"})
    resource.update(_clean({
        "status": _MEDICATION_STATUS[statement.status],
        "medicationCodeableConcept": _clean({"coding": codings, "text": statement.medication_text}),
        "subject": {"reference": f"Patient/{statement.patient_id}"},
        "effectivePeriod": period or None,
        "dateAsserted": iso(statement.created_at),
        "informationSource": {"reference": f"Patient/{statement.patient_id}"},
        "dosage": [{"text": statement.dosage_text}] if statement.dosage_text else None,
        "note": _notes(statement),
    }))
    return resource


_REQUEST_STATUS = {"received": "active", "accepted": "active", "scheduled": "active", "completed": "completed",
                   "declined": "revoked", "cancelled": "revoked", "entered_in_error": "entered-in-error"}


def referral_fhir(referral, request):
    resource = _fhir_base("ServiceRequest", referral)
    extensions = resource.setdefault("extension", [])
    extensions.append({"url": REFERRAL_STATUS_URL, "valueString": referral.status})
    if referral.verification_status == "unconfirmed":
        extensions.append({"url": "urn:clinicrecords:fhir:extension:verification-status",
                           "valueString": "unconfirmed"})
    if referral.status_reason and sees_status_reason(referral, request):
        extensions.append({"url": STATUS_REASON_URL, "valueString": referral.status_reason})
    resource.update(_clean({
        "status": _REQUEST_STATUS[referral.status],
        "intent": "order",
        "priority": referral.priority,
        "code": {"text": f"Referral to {referral.specialty}"},
        "subject": {"reference": f"Patient/{referral.patient_id}"},
        "authoredOn": iso(referral.created_at),
        "reasonCode": [{"coding": [_coding(ICD10CM, referral.reason_code)], "text": referral.reason_text}
                       if referral.reason_text else {"coding": [_coding(ICD10CM, referral.reason_code)]}],
        "note": _notes(referral),
    }))
    return resource
