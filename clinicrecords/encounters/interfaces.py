"""What other contexts may know of the encounters context: its services, looked up by interface."""

from zope.interface import Interface


class IEncounterService(Interface):
    """Encounters: get, list, open_draft, update_draft (apps) and touch, sign, mark_sensitive (staff). Built from the clinic scope."""
