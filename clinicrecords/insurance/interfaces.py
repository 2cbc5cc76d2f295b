"""The insurance services, found with `request.find_service(IPayers, context=...)` and friends: each is built
for the clinic the context hangs under (its `ClinicScope`)."""

from zope.interface import Interface


class IPayers(Interface):
    def get(payer_id):
        """An enabled payer, or None (a disabled payer answers like an absent one)."""

    def list(query):
        """A page of enabled payers, `q` matched case- and accent-insensitively."""


class ICoverages(Interface):
    def get(coverage_id):
        """A coverage of a patient the API may see, or None."""

    def list(query):
        """A page of coverages of patients the API may see."""

    def create(data, reveal_existing):
        """Add a coverage, unconfirmed and inactive."""

    def update(coverage, data, reveal_existing):
        """Change a coverage; identifying changes send a confirmed one back to unconfirmed."""


class IPaymentAdvices(Interface):
    def create(data):
        """Record the calling insurer's payment advice, checked against the clinic's claims."""
