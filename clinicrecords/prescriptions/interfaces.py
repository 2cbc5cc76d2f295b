"""What other contexts may know of the prescriptions context: its services, looked up by interface."""

from zope.interface import Interface


class IPrescriptionService(Interface):
    """Prescriptions: API reads, and staff's additions. Built from the clinic scope."""

    def get(prescription_id):
        """The prescription, or None when absent or its patient restricted."""

    def list(query, cursors):
        """A page of visible prescriptions (`updated_since`, `patient_id`, `status`), oldest first."""

    def add(patient_id, drug, dose, frequency, status="active", source="clinic", written_on=None,
            start_date=None, end_date=None, prescription_id=None):
        """Staff record a prescription (the clinic's prescribing system is the usual writer); bad input raises
        InvalidInput."""
