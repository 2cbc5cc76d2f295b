"""What other contexts may know of the care providers context: its services, looked up by interface."""

from zope.interface import Interface


class ICareProviderService(Interface):
    """Patients' outside care providers. Built from the clinic scope."""

    def get(contact_id):
        """The contact, or None when absent or its patient restricted (one 404 for both)."""

    def list(query, cursors):
        """A page of visible contacts (`updated_since`, `patient_id`, `type`), oldest first."""

    def add(data, owner_id):
        """Save an app's contact at once (no review: a contact is not a clinical record)."""

    def update(contact, data, owner_id):
        """Change a contact the owner added (a clinic's or another app's is refused)."""

    def delete(contact, owner_id):
        """Delete a contact the owner added; its id and patient are kept for bulk exports since then."""

    def record_for_clinic(patient_id, type_, name, is_primary=False, notes=None, **details):
        """Staff record a contact (for example from an intake form): source clinic, never editable by apps."""
