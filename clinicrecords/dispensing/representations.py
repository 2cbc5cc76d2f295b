from clinicrecords.api.render import iso


def dispensing_flag_json(dispensing, request):
    """Every field of the spec's table and nothing else: no price, margin or staff identity (the pharmacist's
    reason is the only staff text), and evidence only from the same patient's own history."""
    return {
        "id": str(dispensing.id),
        "patient_id": str(dispensing.patient_id),
        "medicine": {"name": dispensing.medicine_name, "generic_name": dispensing.generic_name,
                     "brand_name": dispensing.brand_name,
                     "identifiers": [{"system": i["system"], "value": i["value"]} for i in dispensing.identifiers]},
        "days_supply": dispensing.days_supply,
        "date": iso(dispensing.dispensed_at),
        "check_state": dispensing.check_state,
        "flags": list(dispensing.flags),
        "evidence": dict(dispensing.evidence),
        "reason": ({"code": dispensing.reason_code, "text": dispensing.reason_text}
                   if dispensing.reason_code else None),
    }
