"""Sandbox outside care providers (fixed ids): three recorded by the clinic, one added by the sandbox's own
workspace (so its test keys can PATCH and DELETE it)."""

from clinicrecords.care_providers.models import CareProvider
from clinicrecords.care_providers.schemas import SANDBOX_APP_CARE_PROVIDER_ID, SANDBOX_CARE_PROVIDER_IDS
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.providers.services import npi_check_digit


def _npi(first_nine):
    return first_nine + str(npi_check_digit(first_nine))


_CONTACTS = [
    (0, "pcp", "Dr. Samuel Whitcombe", True, "Elm Street Family Practice", "family_medicine", _npi("200000001"),
     "+1 555 0120", "+1 555 0121", "12 Elm Street, Springfield, MA 01101", "Prefers fax for referrals."),
    (1, "specialist", "Dr. Aiko Brandt", False, "Springfield Heart Center", "cardiology", _npi("200000002"),
     "+1 555 0130", None, "3 Valve Lane, Springfield, MA 01102", "Patient reports long waiting times."),
    (1, "pcp", "Dr. Ruth Okonkwo", True, "Northside Health", "internal_medicine", None, "+1 555 0150", None,
     None, None),
]


def seed_care_providers(db, clinic):
    db.flush()  # the patients they belong to
    for contact_id, (patient, type_, name, primary, practice, specialty, npi, phone, fax, address, notes) in zip(
            SANDBOX_CARE_PROVIDER_IDS, _CONTACTS, strict=True):
        db.add(CareProvider(id=contact_id, patient_id=SANDBOX_PATIENT_IDS[patient], type=type_, name=name,
                            is_primary=primary, source="clinic", practice_name=practice, specialty=specialty,
                            npi=npi, phone=phone, fax=fax, address=address, clinic_notes=notes))
    db.add(CareProvider(id=SANDBOX_APP_CARE_PROVIDER_ID, patient_id=SANDBOX_PATIENT_IDS[2], type="specialist",
                        name="Dr. Lena Vogt", source="api", added_by_owner_id=clinic.sandbox_of_workspace_id,
                        practice_name="Riverbank Dermatology", specialty="dermatology",
                        origin_assistant_name="Sandbox Assistant"))
    db.flush()
