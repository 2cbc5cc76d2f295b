"""Pharmacy listings and the network-wide stock search: /v1/listings/* and /v1/clinics/{id}/listing/*."""


def includeme(config):
    # Imported here, not at the top: inventory imports listings.services (so this package) while its own
    # services module is still loading, and these modules read inventory.services back (a real cycle).
    from clinicrecords.listings.interfaces import IListings
    from clinicrecords.listings.network import listing_service_factory
    from clinicrecords.listings.representations import listing_item_json, match_json, pharmacy_json, profile_json
    from clinicrecords.listings.resources import ClinicListing, Listings
    from clinicrecords.listings.schemas import ListingItemOut, ListingMatchOut, ListingProfileOut, PharmacyOut

    config.add_api_resource("listings", Listings)
    config.add_clinic_collection("listing", ClinicListing)
    config.register_service_factory(listing_service_factory, iface=IListings)
    config.add_representation("listing_match", plain=match_json, schema=ListingMatchOut)
    config.add_representation("listed_pharmacy", plain=pharmacy_json, schema=PharmacyOut)
    config.add_representation("listing_profile", plain=profile_json, schema=ListingProfileOut)
    config.add_representation("listing_item", plain=listing_item_json, schema=ListingItemOut)
    config.scan(".views")
