"""The network projection in the control schema: what a listing search may show, and nothing else.

Kept in the same transaction as every stock, link and till change (clinicrecords.listings.projection), and
rebuilt from the clinics' schemas by `listings reindex`. Only linked items of listable clinics (pharmacies
and sandboxes) have rows; there is no quantity anywhere in it.
"""

import datetime
import uuid

from sqlalchemy import ARRAY, CheckConstraint, Double, ForeignKey, Index, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase

TRGM_OPS = "extensions.gin_trgm_ops"


class ListingGrant(ControlBase):
    """A pharmacy listed itself to a workspace: that workspace's live keys find it (staff: listing publish)."""

    __tablename__ = "listing_grants"

    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), primary_key=True)
    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), primary_key=True, index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class ListingClinic(ControlBase):
    """A listable clinic as a search result shows it, with its till's freshness."""

    __tablename__ = "listing_clinics"
    __table_args__ = (Index("ix_listing_clinics_display_name_clinic_id", "display_name", "clinic_id"),)

    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(200))
    lat: Mapped[float | None] = mapped_column(Double)
    lng: Mapped[float | None] = mapped_column(Double)
    # Set for a workspace's sandbox: only that workspace's test keys see its rows.
    sandbox_workspace_id: Mapped[uuid.UUID | None] = mapped_column(unique=True)
    till_reported_at: Mapped[datetime.datetime | None] = mapped_column()
    till_stale_since: Mapped[datetime.datetime | None] = mapped_column()


class ListingItem(ControlBase):
    """A linked item of a listable clinic. `band` ignores staleness: the search applies the till's."""

    __tablename__ = "listing_items"
    __table_args__ = (
        CheckConstraint("band IN ('in_stock', 'low', 'out')", name="band"),
        Index("ix_listing_items_terms", "terms", postgresql_using="gin"),
        Index("ix_listing_items_regulator_numbers", "regulator_numbers", postgresql_using="gin"),
        Index("ix_listing_items_lat_lng", "lat", "lng"),
    )

    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("listing_clinics.clinic_id"), primary_key=True)
    item_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    generic_name: Mapped[str | None] = mapped_column(String(200))
    brand_name: Mapped[str | None] = mapped_column(String(200))
    # Lower-cased names; each is also a row of listing_terms, the trigram-indexed vocabulary.
    terms: Mapped[list[str]] = mapped_column(ARRAY(Text))
    gtin: Mapped[str | None] = mapped_column(String(14), index=True)
    regulator_numbers: Mapped[list[str]] = mapped_column(ARRAY(Text))
    band: Mapped[str] = mapped_column(String(10))
    stock_changed_at: Mapped[datetime.datetime] = mapped_column()
    # The clinic's location, repeated here so the bounding box can be read from this table's index.
    lat: Mapped[float | None] = mapped_column(Double)
    lng: Mapped[float | None] = mapped_column(Double)


class ListingTerm(ControlBase):
    """The distinct names of listed items. Text search finds terms by trigram similarity here (a small
    vocabulary) and then items by exact term (GIN on listing_items.terms): never a trigram scan over every
    listing. Terms no item uses any more match nothing; `listings reindex` drops them."""

    __tablename__ = "listing_terms"
    __table_args__ = (
        Index("ix_listing_terms_term_trgm", "term", postgresql_using="gin", postgresql_ops={"term": TRGM_OPS}),
    )

    term: Mapped[str] = mapped_column(Text, primary_key=True)
