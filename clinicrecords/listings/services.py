"""Listing grants (which organizations a pharmacy lists itself to), the listed pharmacies, and the search."""

import datetime

from sqlalchemy import delete, false, select
from sqlalchemy.dialects.postgresql import insert

from clinicrecords.access.services import get_clinic, get_workspace
from clinicrecords.api.pagination import keyset_page
from clinicrecords.api.problems import Problem
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput
from clinicrecords.inventory import bands
from clinicrecords.inventory.services import ensure_till
from clinicrecords.listings import projection
from clinicrecords.listings.models import ListingClinic, ListingGrant, ListingItem
from clinicrecords.listings.search import Audience, search


class ListingError(InvalidInput):
    """Bad input for a listing operation; nothing was written."""


def publish(db, clinic_id, workspace_id):
    """The pharmacy lists itself to the workspace: its live keys see the pharmacy and search its linked items."""
    clinic = get_clinic(db, clinic_id)
    get_workspace(db, workspace_id)
    if clinic.kind != "pharmacy" or clinic.is_sandbox:
        raise ListingError("only a pharmacy lists itself to organizations")
    open_clinic(db, clinic.id)
    projection.sync_clinic(db, clinic, ensure_till(db))
    db.execute(insert(ListingGrant).values(clinic_id=clinic.id, workspace_id=workspace_id)
               .on_conflict_do_nothing())
    return clinic


def unpublish(db, clinic_id, workspace_id):
    removed = db.execute(delete(ListingGrant).where(ListingGrant.clinic_id == clinic_id,
                                                    ListingGrant.workspace_id == workspace_id)).rowcount
    if not removed:
        raise ListingError("that pharmacy is not listed to that workspace")


def audience(identity):
    """None for a clinic-owned key (it never searches the network); refusals as for reaching a clinic."""
    if identity.clinic_id is not None:
        return None
    if identity.is_test:
        return Audience(sandbox_clinic_id=identity.sandbox_clinic_id)
    if not identity.workspace_verified:
        raise Problem("not_verified", "The workspace's verification is absent or has lapsed.")
    if identity.workspace_plan != "paid" or not identity.workspace_terms_accepted:
        raise Problem("workspace_plan_required", "Live access needs a paid plan with the API Terms of Use accepted.")
    return Audience(workspace_id=identity.workspace_id)


class ListingService:
    def __init__(self, request):
        self.request = request
        self.db = request.db
        self.age = bands.max_age(request.registry.settings)
        self.now = datetime.datetime.now(datetime.UTC)

    def search(self, query):
        reach = audience(self.request.identity)
        if reach is None:
            return []
        return search(self.db, query, reach, self.now, self.age)

    def pharmacies(self, query):
        """Pharmacies listed to the caller's organization (a test key: its sandbox; a clinic key: none)."""
        reach = audience(self.request.identity)
        statement = select(ListingClinic)
        if reach is None:
            statement = statement.where(false())
        elif reach.sandbox_clinic_id is not None:
            statement = statement.where(ListingClinic.clinic_id == reach.sandbox_clinic_id)
        else:
            statement = statement.where(ListingClinic.clinic_id.in_(
                select(ListingGrant.clinic_id).where(ListingGrant.workspace_id == reach.workspace_id)))
        return keyset_page(self.request, self.db, statement,
                           (ListingClinic.display_name, ListingClinic.clinic_id), query)

    def stale(self, row):
        """Freshness of a projection clinic row (the same rule as the search)."""
        if row.till_stale_since is not None:
            return True
        if row.sandbox_workspace_id is not None:
            return False
        return row.till_reported_at is None or row.till_reported_at <= self.now - self.age


def listing_service_factory(context, request):
    return ListingService(request)


def forget_items(db, clinic_id):
    """Drop the clinic's listed items from the projection (a sandbox reset seeds them again)."""
    db.execute(delete(ListingItem).where(ListingItem.clinic_id == clinic_id))
