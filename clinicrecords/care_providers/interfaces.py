"""What other contexts may know of the care providers context: its services, looked up by interface."""

from zope.interface import Interface


class ICareProviderService(Interface):
    """Patients' outside care providers: get, list, add, update, delete (apps) and record_for_clinic
    (staff). Built from the clinic scope."""
