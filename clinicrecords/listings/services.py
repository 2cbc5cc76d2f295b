"""What other contexts call of listings: keeping the network projection (this context's, in the control
schema) in step with their records, inside their own transactions.

The inventory asks for it by its interface (`inventory.interfaces.INetworkProjection`, registered by this
context's includeme) on every stock, link and till change; the calls take the records and the stock band as
values and read no other context's tables."""

from sqlalchemy import delete, select
from zope.interface import implementer

from clinicrecords.inventory.interfaces import INetworkProjection
from clinicrecords.listings import projection
from clinicrecords.listings.models import ListingClinic, ListingItem
from clinicrecords.listings.projection import listable, resync_clinic

__all__ = ["NetworkProjection", "forget_items", "listable", "resync_clinic", "silent_tills"]


def silent_tills(db, reported_before):
    """Ids of the live clinics whose till last reported before `reported_before` and is not yet announced
    stale: what the till sweep opens, so no clinic schema is opened for a till that is still fresh."""
    return db.scalars(select(ListingClinic.clinic_id).where(
        ListingClinic.till_stale_since.is_(None), ListingClinic.till_reported_at <= reported_before,
        ListingClinic.sandbox_workspace_id.is_(None)).order_by(ListingClinic.clinic_id)).all()


def forget_items(db, clinic_id):
    """Drop the clinic's listed items from the projection (a sandbox reset seeds them again)."""
    db.execute(delete(ListingItem).where(ListingItem.clinic_id == clinic_id))


@implementer(INetworkProjection)
class NetworkProjection:
    """The projection as the inventory sees it."""

    sync_item = staticmethod(projection.sync_item)
    remove_item = staticmethod(projection.remove_item)
    sync_clinic = staticmethod(projection.sync_clinic)
    silent_tills = staticmethod(silent_tills)
