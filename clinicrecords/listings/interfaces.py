"""The listings service of the calling key, found with `request.find_service(IListings)`."""

from zope.interface import Interface


class IListings(Interface):
    def search(query):
        """Rows of the network search (a `listings.search.SearchQuery`) in the key's audience; none for a
        clinic-owned key. Refusals as for reaching a clinic (not_verified, workspace_plan_required)."""

    def pharmacies(query):
        """A page of the pharmacies listed to the caller's organization (a test key: its sandbox)."""

    def stale(row):
        """Whether a listed pharmacy's till is stale (the same rule as the search)."""
