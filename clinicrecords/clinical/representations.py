"""Plain JSON and FHIR R4 shapes of allergies, conditions, reported medicines and referrals.

FHIR extensions carry `valueString`. An item accepted automatically reads verification status unconfirmed
until a clinician reviews it, and carries the accepted-by extension.
"""

import functools

from clinicrecords.access.services import sent_by
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
    return sent_by(getattr(request, "identity", None), referral.sender_owner_id)


def referral_json(referral, request):
    return dict(_item(referral), status=referral.status,
                status_reason=referral.status_reason if sees_status_reason(referral, request) else None,
                reason_code=referral.reason_code, reason_text=referral.reason_text, specialty=referral.specialty,
                priority=referral.priority)


# FHIR R4
#
# A page renders up to 100 of these per request, so each resource is one dict built in its final key order
# (no clean-up pass, no helper per field), and the codings that depend only on a status are built once and
# shared: the documents are serialized as built and never changed afterwards.

_EMPTY = (None, [], {})  # what FHIR JSON leaves out (R4 §2.6.2); an empty string is kept as it was


@functools.cache
def _concept(system, code):
    """The CodeableConcept of one status code in one code system, shared by every resource that carries it."""
    return {"coding": [{"system": system, "code": code}]}


def _coding(system, code, display=None):
    coding = {"system": system, "code": code}
    if display:
        coding["display"] = display
    return coding


def _base(resource_type, record, with_id=True):
    resource = {"resourceType": resource_type, "id": str(record.id)} if with_id else {"resourceType": resource_type}
    resource["meta"] = {"lastUpdated": iso(record.updated_at)}
    if record.accepted_by:
        resource["extension"] = [{"url": ACCEPTED_BY_URL, "valueString": record.accepted_by}]
    return resource


def _set_dates_and_note(resource, record, *dates):
    """`dates`: (FHIR name, value) in the resource's order, each left out when absent; the note follows them."""
    for name, value in dates:
        if value is not None:
            resource[name] = value.isoformat()
    if record.note:
        resource["note"] = [{"text": record.note}]


_ALLERGY_CLINICAL = "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical"
_ALLERGY_VERIFICATION = "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification"
_NO_KNOWN_ALLERGY = {"coding": [_coding(SNOMED, "716186003", "No known allergy")], "text": "No known allergies"}


def _substance(allergy):
    code = {"coding": [{"system": RXNORM, "code": allergy.substance_rxnorm}]} if allergy.substance_rxnorm else {}
    if allergy.substance_text is not None:
        code["text"] = allergy.substance_text
    return code


def _reaction(reaction):
    shown = {"manifestation": [{"text": m} for m in reaction["manifestation"]],
             "description": reaction.get("description")}
    return {name: value for name, value in shown.items() if value not in _EMPTY}


def allergy_fhir(allergy, request):
    entry = allergy.entry
    resource = _base("AllergyIntolerance", allergy, with_id=entry != "legacy_text")
    status = allergy.clinical_status
    if status != "entered_in_error":  # FHIR carries no clinical status on an entered-in-error record.
        resource["clinicalStatus"] = _concept(_ALLERGY_CLINICAL, status)
    verification = allergy.verification_status if entry != "legacy_text" else "unconfirmed"
    resource["verificationStatus"] = _concept(_ALLERGY_VERIFICATION, verification.replace("_", "-"))
    for name, value in (("type", allergy.type), ("category", allergy.category)):
        if value not in _EMPTY:
            resource[name] = value
    if allergy.criticality:
        resource["criticality"] = allergy.criticality.replace("_", "-")
    code = _NO_KNOWN_ALLERGY if entry == "no_known_allergies" else _substance(allergy)
    if code:
        resource["code"] = code
    resource["patient"] = {"reference": f"Patient/{allergy.patient_id}"}
    _set_dates_and_note(resource, allergy, ("onsetDateTime", allergy.onset_date), ("recordedDate", allergy.created_at))
    if allergy.reactions:
        resource["reaction"] = [_reaction(reaction) for reaction in allergy.reactions]
    return resource


_CONDITION_CLINICAL = "http://terminology.hl7.org/CodeSystem/condition-clinical"
_CONDITION_VERIFICATION = "http://terminology.hl7.org/CodeSystem/condition-ver-status"


def condition_fhir(condition, request):
    resource = _base("Condition", condition)
    status = condition.clinical_status
    if status != "entered_in_error":
        resource["clinicalStatus"] = _concept(_CONDITION_CLINICAL, status)
    resource["verificationStatus"] = _concept(_CONDITION_VERIFICATION,
                                              condition.verification_status.replace("_", "-"))
    resource["code"] = {"coding": [_coding(ICD10CM, condition.icd10_code, condition.display)],
                        "text": condition.display}
    resource["subject"] = {"reference": f"Patient/{condition.patient_id}"}
    _set_dates_and_note(resource, condition, ("onsetDateTime", condition.onset_date),
                        ("abatementDateTime", condition.abatement_date), ("recordedDate", condition.created_at))
    return resource


_MEDICATION_STATUS = {"active": "active", "completed": "completed", "stopped": "stopped", "intended": "intended",
                      "on_hold": "on-hold", "not_taken": "not-taken", "entered_in_error": "entered-in-error"}
_UNCONFIRMED = {"url": "urn:clinicrecords:fhir:extension:verification-status", "valueString": "unconfirmed"}


def medication_statement_fhir(statement, request):
    resource = _base("MedicationStatement", statement)
    if statement.verification_status == "unconfirmed":
        resource.setdefault("extension", []).append(_UNCONFIRMED)
    resource["status"] = _MEDICATION_STATUS[statement.status]
    medication = ({"coding": [{"system": RXNORM, "code": statement.medication_rxnorm}]}
                  if statement.medication_rxnorm else {})
    if statement.medication_text is not None:
        medication["text"] = statement.medication_text
    if medication:
        resource["medicationCodeableConcept"] = medication
    patient = {"reference": f"Patient/{statement.patient_id}"}
    resource["subject"] = patient
    period = {name: value.isoformat() for name, value in (("start", statement.effective_start),
                                                           ("end", statement.effective_end)) if value is not None}
    if period:
        resource["effectivePeriod"] = period
    if statement.created_at is not None:
        resource["dateAsserted"] = statement.created_at.isoformat()
    resource["informationSource"] = dict(patient)
    if statement.dosage_text:
        resource["dosage"] = [{"text": statement.dosage_text}]
    _set_dates_and_note(resource, statement)
    return resource


_REQUEST_STATUS = {"received": "active", "accepted": "active", "scheduled": "active", "completed": "completed",
                   "declined": "revoked", "cancelled": "revoked", "entered_in_error": "entered-in-error"}


def referral_fhir(referral, request):
    resource = _base("ServiceRequest", referral)
    extensions = resource.setdefault("extension", [])
    extensions.append({"url": REFERRAL_STATUS_URL, "valueString": referral.status})
    if referral.verification_status == "unconfirmed":
        extensions.append(_UNCONFIRMED)
    if referral.status_reason and sees_status_reason(referral, request):
        extensions.append({"url": STATUS_REASON_URL, "valueString": referral.status_reason})
    resource["status"] = _REQUEST_STATUS[referral.status]
    resource["intent"] = "order"
    if referral.priority not in _EMPTY:
        resource["priority"] = referral.priority
    resource["code"] = {"text": f"Referral to {referral.specialty}"}
    resource["subject"] = {"reference": f"Patient/{referral.patient_id}"}
    if referral.created_at is not None:
        resource["authoredOn"] = referral.created_at.isoformat()
    reason = {"coding": [_coding(ICD10CM, referral.reason_code)]}
    if referral.reason_text:
        reason["text"] = referral.reason_text
    resource["reasonCode"] = [reason]
    _set_dates_and_note(resource, referral)
    return resource
