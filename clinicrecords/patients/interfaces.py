"""What other contexts may know of the patients context: its services, looked up by interface."""

from zope.interface import Interface

from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS

__all__ = ["IPatientImportService", "IPatientService", "SANDBOX_PATIENT_IDS"]


class IPatientService(Interface):
    """The clinic's patients as the API sees them (restricted patients are invisible). Built from the clinic
    scope (clinicrecords.clinics.interfaces.IClinicScope)."""

    def get(patient_id):
        """The patient, or None when absent or restricted (one answer for both)."""

    def list(query, cursors):
        """A page of visible patients (`updated_since`, `family_name`), oldest first."""

    def create(data, patient_id=None):
        """A new patient from a validated body (`patient_id`: a fixed id, for the sandbox's seed)."""

    def update(patient, data):
        """Change a patient with a validated partial body."""


class IPatientImportService(Interface):
    """Patient imports of one clinic (a CSV or FHIR Bundle checked, then written by a task)."""

    def get(import_id):
        """The import job, or None."""

    def submit(clinic_id, input_format, data, key_id):
        """Check the rows and keep the job: `needs_review` when a row failed, else `validating`;
        content already imported is 409 already_imported."""

    def run_valid_rows(clinic_id, job):
        """Write only the rows that passed, of a job waiting for review."""

    def created_patient_ids(job):
        """The patients the job's rows have created so far (flagged duplicates included)."""

    def write_and_wait(clinic_id, job):
        """Commit the accepted job, let the task write it (after the commit), and wait for it within the bound:
        the job as it stands then, finished or still validating."""
