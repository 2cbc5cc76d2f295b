"""What other contexts may know of the patients context: its services, looked up by interface."""

from zope.interface import Interface

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS

__all__ = ["IPatientImportService", "IPatientService", "SANDBOX_PATIENT_IDS"]


class IPatientService(Interface):
    """The clinic's patients as the API sees them (restricted patients are invisible): get, list, create,
    update. Built from the clinic scope (clinicrecords.clinics.interfaces.IClinicScope)."""


class IPatientImportService(Interface):
    """Patient imports of one clinic: submit, get, run_valid_rows, write_and_wait, created_patient_ids."""
