"""What other contexts may know of the prescriptions context: its services, looked up by interface."""

from zope.interface import Interface


class IPrescriptionService(Interface):
    """Prescriptions: get, list (API reads) and add (staff). Built from the clinic scope."""
