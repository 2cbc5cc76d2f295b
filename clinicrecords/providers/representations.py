from clinicrecords.api.render import iso

NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
ROLE_EXTENSION = "urn:clinicrecords:fhir:practitioner-role"
SPECIALTY_EXTENSION = "urn:clinicrecords:fhir:practitioner-specialty"


def provider_json(provider, request):
    return {
        "id": str(provider.id),
        "name": f"{provider.given_name} {provider.family_name}",
        "given_name": provider.given_name,
        "family_name": provider.family_name,
        "role": provider.role,
        "specialties": list(provider.specialties),
        "npi": provider.npi,
        "licences": [dict(licence) for licence in provider.licences],
        "created_at": iso(provider.created_at),
        "updated_at": iso(provider.updated_at),
    }


def provider_fhir(provider, request):
    resource = {
        "resourceType": "Practitioner",
        "id": str(provider.id),
        "meta": {"lastUpdated": iso(provider.updated_at)},
        "name": [{"family": provider.family_name, "given": [provider.given_name]}],
        "extension": [{"url": ROLE_EXTENSION, "valueString": provider.role}]
        + [{"url": SPECIALTY_EXTENSION, "valueString": s} for s in provider.specialties],
    }
    if provider.npi:
        resource["identifier"] = [{"system": NPI_SYSTEM, "value": provider.npi}]
    if provider.licences:
        resource["qualification"] = [{
            "identifier": [{"value": licence["number"]}],
            "code": {"text": "licence"},
            "issuer": {"display": licence["jurisdiction"]},
            **({"period": {"end": licence["expires_on"]}} if licence.get("expires_on") else {}),
        } for licence in provider.licences]
    return resource


def provider_role_fhir(provider, request):
    """The clinician's role at the clinic, as FHIR looks roles up (`PractitionerRole?practitioner=`): one per
    clinician, with the clinician's id."""
    resource = {
        "resourceType": "PractitionerRole",
        "id": str(provider.id),
        "meta": {"lastUpdated": iso(provider.updated_at)},
        "active": True,
        "practitioner": {"reference": f"Practitioner/{provider.id}",
                         "display": f"{provider.given_name} {provider.family_name}"},
        "code": [{"text": provider.role}],
    }
    if provider.specialties:
        resource["specialty"] = [{"text": specialty} for specialty in provider.specialties]
    return resource
