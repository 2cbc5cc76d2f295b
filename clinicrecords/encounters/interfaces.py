"""What other contexts may know of the encounters context: its services, looked up by interface."""

from zope.interface import Interface


class IEncounterService(Interface):
    """Encounters as apps see them. Built from the clinic scope (the staff's touch, sign and mark_sensitive are
    `services.EncounterStaff`)."""

    def get(encounter_id):
        """The encounter, or None when absent, sensitive or its patient restricted (one answer for all)."""

    def list(query, cursors):
        """A page of visible encounters (`updated_since`, `patient_id`, `status`), oldest first."""

    def open_draft(data, owner_id):
        """A blank draft note opened by the calling key's owner: nothing is ordered, prescribed, billed or
        signed."""

    def update_draft(encounter, data, owner_id):
        """Change a draft this owner opened and no clinician touched (else 409 note_not_editable)."""
