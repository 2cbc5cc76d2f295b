"""Listing grants (which organizations a pharmacy lists itself to), the listed pharmacies, and the search.

The routes' side of the context; what other contexts call is in `listings.services`."""


from sqlalchemy import delete, false, select
from sqlalchemy.dialects.postgresql import insert
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.access.services import get_clinic, get_workspace
from clinicrecords.api.pagination import keyset_page, list_cursors
from clinicrecords.api.problems import Problem
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput
from clinicrecords.inventory.services import ensure_till, max_age
from clinicrecords.listings import projection
from clinicrecords.listings.interfaces import IListings
from clinicrecords.listings.models import ListingClinic, ListingGrant
from clinicrecords.listings.search import Audience, search
from clinicrecords.settings import app_settings


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


@implementer(IListings)
class ListingService:
    """The network as the calling key sees it; `age` is the till's maximum silence."""

    def __init__(self, db, identity, age, cursors, now=None):
        self.db = db
        self.identity = identity
        self.age = age
        self.cursors = cursors
        self.now = now or clock.now()

    def search(self, query):
        reach = audience(self.identity)
        if reach is None:
            return []
        return search(self.db, query, reach, self.now, self.age)

    def pharmacies(self, query):
        """Pharmacies listed to the caller's organization (a test key: its sandbox; a clinic key: none)."""
        reach = audience(self.identity)
        statement = select(ListingClinic)
        if reach is None:
            statement = statement.where(false())
        elif reach.sandbox_clinic_id is not None:
            statement = statement.where(ListingClinic.clinic_id == reach.sandbox_clinic_id)
        else:
            statement = statement.where(ListingClinic.clinic_id.in_(
                select(ListingGrant.clinic_id).where(ListingGrant.workspace_id == reach.workspace_id)))
        return keyset_page(self.cursors, self.db, statement,
                           (ListingClinic.display_name, ListingClinic.clinic_id), query)

    def stale(self, row):
        """Freshness of a projection clinic row (the same rule as the search)."""
        if row.till_stale_since is not None:
            return True
        if row.sandbox_workspace_id is not None:
            return False
        return row.till_reported_at is None or row.till_reported_at <= self.now - self.age


def listing_service_factory(context, request):
    """/v1/listings is no clinic's: the service is the calling key's, whatever the context."""
    return ListingService(request.db, request.identity, max_age(app_settings(request.registry).inventory),
                          list_cursors(request))
