"""What other contexts may know of the providers context: its services, looked up by interface."""

from zope.interface import Interface

from clinicrecords.providers.schemas import SANDBOX_PROVIDER_IDS

__all__ = ["IProviderService", "SANDBOX_PROVIDER_IDS"]


class IProviderService(Interface):
    """The clinic's clinicians: API reads, and staff's additions. Built from the clinic scope."""

    def get(provider_id):
        """The clinician, or None."""

    def list(query, cursors):
        """A page of clinicians (`updated_since`), oldest first."""

    def add(given_name, family_name, role, specialties=(), npi=None, licences=(), provider_id=None):
        """Staff record a clinician. `licences` are "JURISDICTION:NUMBER[:EXPIRES_ON]" strings; bad input
        raises InvalidInput."""
