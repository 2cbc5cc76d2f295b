"""What other contexts may know of the providers context: its services, looked up by interface."""

from zope.interface import Interface


class IProviderService(Interface):
    """The clinic's clinicians: get, list (API reads) and add (staff). Built from the clinic scope."""
