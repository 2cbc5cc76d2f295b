from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.listings.services import listable
from clinicrecords.resources import Branch, Resource


class ListedPharmacies(Resource):
    """/v1/listings/pharmacies"""


class ListingSearch(Resource):
    """/v1/listings/search"""


class Listings(Branch):
    """/v1/listings: not under a clinic, so the key's own scopes are what it holds."""

    children = {"pharmacies": ListedPharmacies, "search": ListingSearch}


class ListingProfile(Resource):
    """/v1/clinics/{clinic_id}/listing/profile"""


class ListingItems(Resource):
    """/v1/clinics/{clinic_id}/listing/items"""


class ClinicListing(Branch):
    """/v1/clinics/{clinic_id}/listing: a pharmacy's own listing (or a sandbox's), through a connection."""

    children = {"profile": ListingProfile, "items": ListingItems}

    def __init__(self, parent, name):
        super().__init__(parent, name)
        clinic = clinic_scope(parent).clinic
        if not listable(clinic):
            raise KeyError(name)
        self.clinic = clinic
