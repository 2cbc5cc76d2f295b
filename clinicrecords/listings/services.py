"""What other contexts call of listings: keeping the network projection (this context's, in the control
schema) in step with their records, inside their own transactions.

Inventory calls these on every stock, link and till change; they take the records and the stock band as
values and read no other context's tables."""

from sqlalchemy import delete, select

from clinicrecords.listings.models import ListingClinic, ListingItem
from clinicrecords.listings.projection import listable, remove_item, sync_clinic, sync_item

__all__ = ["forget_items", "listable", "remove_item", "silent_tills", "sync_clinic", "sync_item"]


def silent_tills(db, reported_before):
    """Ids of the live clinics whose till last reported before `reported_before` and is not yet announced
    stale: what the till sweep opens, so no clinic schema is opened for a till that is still fresh."""
    return db.scalars(select(ListingClinic.clinic_id).where(
        ListingClinic.till_stale_since.is_(None), ListingClinic.till_reported_at <= reported_before,
        ListingClinic.sandbox_workspace_id.is_(None)).order_by(ListingClinic.clinic_id)).all()


def forget_items(db, clinic_id):
    """Drop the clinic's listed items from the projection (a sandbox reset seeds them again)."""
    db.execute(delete(ListingItem).where(ListingItem.clinic_id == clinic_id))
