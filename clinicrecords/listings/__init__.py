"""Pharmacy listings and the network-wide stock search: /v1/listings/* and /v1/clinics/{id}/listing/*."""


def includeme(config):
    # Imported here: the package is imported by its sibling context before the configuration runs.
    from clinicrecords.listings.representations import listing_item_json, match_json, pharmacy_json, profile_json
    from clinicrecords.listings.resources import ClinicListing, Listings
    from clinicrecords.listings.schemas import ListingItemOut, ListingMatchOut, ListingProfileOut, PharmacyOut
    from clinicrecords.listings.services import listing_service_factory

    config.add_api_resource("listings", Listings)
    config.add_clinic_collection("listing", ClinicListing)
    config.register_service_factory(listing_service_factory, name="listings")
    config.add_representation("listing_match", plain=match_json, schema=ListingMatchOut)
    config.add_representation("listed_pharmacy", plain=pharmacy_json, schema=PharmacyOut)
    config.add_representation("listing_profile", plain=profile_json, schema=ListingProfileOut)
    config.add_representation("listing_item", plain=listing_item_json, schema=ListingItemOut)
    config.scan(".views")
