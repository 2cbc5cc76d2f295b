from clinicrecords.api.render import iso
from clinicrecords.insurance.money import plain_amount


def payer_json(payer, request):
    return {"id": str(payer.id), "display_name": payer.display_name, "primary_payer_id": payer.primary_payer_id,
            "coverage_types": list(payer.coverage_types), "operating_states": list(payer.operating_states)}


def payer_fhir(payer, request):
    """FHIR R4 Organization of type `pay` (payer)."""
    resource = {
        "resourceType": "Organization",
        "id": str(payer.id),
        "active": True,
        "identifier": [{"system": "urn:clinicrecords:primary-payer-id", "value": payer.primary_payer_id}],
        "type": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/organization-type",
                              "code": "pay", "display": "Payer"}]}],
        "name": payer.display_name,
    }
    if payer.operating_states:
        resource["address"] = [{"state": state} for state in payer.operating_states]
    return resource


def coverage_json(coverage, request):
    return {
        "id": str(coverage.id),
        "patient_id": str(coverage.patient_id),
        "payer_id": str(coverage.payer_id),
        "member_id": coverage.member_id,
        "group_number": coverage.group_number,
        "subscriber": {"relationship": coverage.subscriber_relationship, "name": coverage.subscriber_name,
                       "birth_date": iso(coverage.subscriber_birth_date)},
        "period": ({"start": iso(coverage.period_start), "end": iso(coverage.period_end)}
                   if coverage.period_start or coverage.period_end else None),
        "confirmation_status": coverage.confirmation_status,
        "coverage_active": coverage.coverage_active,
        "created_at": iso(coverage.created_at),
        "updated_at": iso(coverage.updated_at),
    }


_RELATIONSHIP_CODES = {"self": "self", "spouse": "spouse", "child": "child", "other": "other"}


def coverage_fhir(coverage, request):
    """FHIR R4 Coverage. Only an active (staff-activated) coverage reads `active`; every other is `draft`."""
    resource = {
        "resourceType": "Coverage",
        "id": str(coverage.id),
        "meta": {"lastUpdated": iso(coverage.updated_at)},
        "status": "active" if coverage.coverage_active else "draft",
        "subscriberId": coverage.member_id,
        "beneficiary": {"reference": f"Patient/{coverage.patient_id}"},
        "relationship": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/subscriber-relationship",
            "code": _RELATIONSHIP_CODES[coverage.subscriber_relationship]}]},
        "payor": [{"reference": f"Organization/{coverage.payer_id}"}],
        "extension": [{"url": "urn:clinicrecords:coverage-confirmation-status",
                       "valueCode": coverage.confirmation_status}],
    }
    if coverage.period_start or coverage.period_end:
        resource["period"] = {k: iso(v) for k, v in (("start", coverage.period_start),
                                                     ("end", coverage.period_end)) if v}
    if coverage.group_number:
        resource["class"] = [{"type": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/coverage-class", "code": "group"}]},
            "value": coverage.group_number}]
    return resource


def payment_advice_json(advice, request):
    return {
        "id": str(advice.id),
        "insurance_company_id": str(advice.insurance_company_id),
        "paid_on": iso(advice.paid_on),
        "amount": plain_amount(advice.amount, advice.currency),
        "currency": advice.currency,
        "method": advice.method,
        "reference": advice.reference,
        "status": advice.status,
        "created_at": iso(advice.created_at),
        "allocations": [{"claim_id": str(a.claim_id), "amount": plain_amount(a.amount, advice.currency)}
                        for a in advice.allocations],
    }
