"""What other contexts may know of the scheduling context: its services, looked up by interface."""

from zope.interface import Interface


class IAppointmentService(Interface):
    """Appointments of one clinic. Built from the clinic scope (its session and clinic, whose time zone the
    slots follow)."""

    def get(appointment_id):
        """The appointment, or None when absent or its patient restricted (one 404 for both)."""

    def list(query, cursors):
        """A page of visible appointments (`patient_id`, `provider_id`, `status`, `updated_since`,
        `starts_from`, `starts_before`), by start."""

    def book(data, owner_id):
        """Book a slot with an eligible clinician at work then, for the calling key's owner."""

    def cancel(appointment, owner_id):
        """Cancel an appointment this owner booked (else 409 appointment_clinic_managed)."""
