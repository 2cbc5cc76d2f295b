from clinicrecords.api.render import iso


def patient_json(patient, request):
    return {
        "id": str(patient.id),
        "given_name": patient.given_name,
        "family_name": patient.family_name,
        "birth_date": iso(patient.birth_date),
        "sex": patient.sex,
        "phone": patient.phone,
        "email": patient.email,
        "address": patient.address,
        "external_id": patient.external_id,
        "created_at": iso(patient.created_at),
        "updated_at": iso(patient.updated_at),
    }


_FHIR_GENDER = {"female": "female", "male": "male", "other": "other", "unknown": "unknown"}


def patient_fhir(patient, request):
    resource = {
        "resourceType": "Patient",
        "id": str(patient.id),
        "meta": {"lastUpdated": iso(patient.updated_at)},
        "name": [{"family": patient.family_name, "given": [patient.given_name]}],
    }
    if patient.birth_date:
        resource["birthDate"] = iso(patient.birth_date)
    if patient.sex:
        resource["gender"] = _FHIR_GENDER[patient.sex]
    telecom = [{"system": "phone", "value": patient.phone}] if patient.phone else []
    telecom += [{"system": "email", "value": patient.email}] if patient.email else []
    if telecom:
        resource["telecom"] = telecom
    if patient.address:
        address = {key: value for key, value in {
            "line": patient.address.get("line"), "city": patient.address.get("city"),
            "state": patient.address.get("region"), "postalCode": patient.address.get("postal_code"),
            "country": patient.address.get("country")}.items() if value}
        resource["address"] = [address]
    if patient.external_id:
        resource["identifier"] = [{"system": "urn:clinicrecords:external-id", "value": patient.external_id}]
    return resource
