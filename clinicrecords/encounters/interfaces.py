"""What other contexts may know of the encounters context: its services, looked up by interface."""

from zope.interface import Interface


class IEncounterService(Interface):
    """Encounters as apps see them: get, list, open_draft, update_draft. Built from the clinic scope (the
    staff's touch, sign and mark_sensitive are `services.EncounterStaff`)."""
