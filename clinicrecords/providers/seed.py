"""Sandbox clinicians (fixed ids, fictional people, NPIs with valid check digits)."""

from clinicrecords.providers.models import Provider
from clinicrecords.providers.npi import npi_check_digit
from clinicrecords.providers.schemas import SANDBOX_PROVIDER_IDS


def _npi(first_nine):
    return first_nine + str(npi_check_digit(first_nine))


_CLINICIANS = [
    ("Imani", "Achterberg", "physician", ["family_medicine"], _npi("100000001"),
     [{"jurisdiction": "MA", "number": "MD-204511", "expires_on": "2028-06-30"}]),
    ("Tomas", "Rinaldi", "nurse_practitioner", ["pediatrics"], _npi("100000002"),
     [{"jurisdiction": "MA", "number": "NP-88120", "expires_on": "2027-12-31"}]),
    ("Priya", "Castellanos", "physician", ["cardiology", "internal_medicine"], _npi("100000003"),
     [{"jurisdiction": "NH", "number": "MD-55012", "expires_on": None}]),
]


def seed_providers(db, clinic):
    for provider_id, (given, family, role, specialties, npi, licences) in zip(
            SANDBOX_PROVIDER_IDS, _CLINICIANS, strict=True):
        db.add(Provider(id=provider_id, given_name=given, family_name=family, role=role,
                        specialties=specialties, npi=npi, licences=licences))
    db.flush()
