"""What other contexts may know of the providers context: its services, looked up by interface."""

from zope.interface import Interface

from clinicrecords.providers.schemas import SANDBOX_PROVIDER_IDS

__all__ = ["IProviderService", "SANDBOX_PROVIDER_IDS"]


class IProviderService(Interface):
    """The clinic's clinicians: get, list (API reads) and add (staff). Built from the clinic scope."""
