"""Pharmacy listings and the network-wide stock search: /v1/listings/* and /v1/clinics/{id}/listing/*."""

from clinicrecords.inventory.interfaces import INetworkProjection
from clinicrecords.listings.interfaces import IListings
from clinicrecords.listings.network import listing_service_factory
from clinicrecords.listings.representations import listing_item_json, match_json, pharmacy_json, profile_json
from clinicrecords.listings.resources import ClinicListing, Listings
from clinicrecords.listings.schemas import ListingItemOut, ListingMatchOut, ListingProfileOut, PharmacyOut
from clinicrecords.listings.services import NetworkProjection


def includeme(config):
    config.add_api_resource("listings", Listings)
    config.add_clinic_collection("listing", ClinicListing)
    config.register_service_factory(listing_service_factory, iface=IListings)
    # A utility, not a request service: the inventory keeps the projection in step from operator commands, the
    # worker and the sandbox's seed too, where there is no request.
    config.registry.registerUtility(NetworkProjection(), INetworkProjection)
    config.add_representation("listing_match", plain=match_json, schema=ListingMatchOut)
    config.add_representation("listed_pharmacy", plain=pharmacy_json, schema=PharmacyOut)
    config.add_representation("listing_profile", plain=profile_json, schema=ListingProfileOut)
    config.add_representation("listing_item", plain=listing_item_json, schema=ListingItemOut)
    config.scan(".views")
