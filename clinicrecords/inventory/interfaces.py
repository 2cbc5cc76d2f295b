"""The inventory of the clinic a context hangs under, found with `request.find_service(IInventory)` (during
traversal: `context=self`). The listings context reads a pharmacy's listed items through it.

`INetworkProjection` is what the inventory needs of the listings context: it asks for it by interface, so
inventory imports nothing of listings (listings reads the inventory through `inventory.services`)."""

from zope.interface import Attribute, Interface


class INetworkProjection(Interface):
    """The network projection (the listings context's, in the control schema), kept in step inside each
    inventory change: every call runs in the caller's transaction. Provided by listings, registered as a
    utility; the inventory finds it with `inventory.services.network_projection(registry)`."""

    def sync_item(db, clinic, item, till, band):
        """The item's row (none unless it is linked and the clinic listable), with its stock `band`."""

    def remove_item(db, clinic, item_id):
        """A deleted item leaves the network at once."""

    def sync_clinic(db, clinic, till):
        """The clinic's row: name, location and the till's freshness."""

    def silent_tills(db, reported_before):
        """Ids of the live clinics whose till last reported before `reported_before`, not yet announced stale."""


class IInventory(Interface):
    till = Attribute("the clinic's till row (a fresh, never reported one when it has none)")

    def band(item):
        """The band readers see: unknown while the till is stale."""

    def as_of(item):
        """When the band shown became true."""

    def stale():
        """Whether the clinic's till is stale now."""

    def get(item_id, linked_only=False):
        """The item, or None."""

    def list(query, linked_only=False):
        """A page of the clinic's items (only the network-listed ones with `linked_only`)."""

    def delete(item_id):
        """Delete an item that never moved; False when it is gone."""

    def movements(item_id, query):
        """A page of the item's stock ledger, oldest first."""

    def record_movement(item_id, body):
        """Add an API movement to the item's ledger."""

    def accept_batch(body):
        """Check and apply the till's stock snapshot."""
