"""The inventory of the clinic a context hangs under, found with `request.find_service(IInventory)` (during
traversal: `context=self`). The listings context reads a pharmacy's listed items through it."""

from zope.interface import Attribute, Interface


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
