from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.pagination import ListQuery
from clinicrecords.api.representations import render_list, render_one, render_page
from clinicrecords.inventory.interfaces import IInventory
from clinicrecords.listings.interfaces import IListings
from clinicrecords.listings.resources import ListedPharmacies, ListingItems, ListingProfile, ListingSearch
from clinicrecords.listings.schemas import ListingSearchRequest
from clinicrecords.listings.search import Near, SearchQuery


def _search_query(validated):
    item, near = validated["item"], validated.get("near")
    return SearchQuery(q=item.get("q"), gtin=item.get("gtin"), regulator_number=item.get("regulator_number"),
                       near=Near(**near) if near else None, limit=validated["limit"])


@view_config(context=ListingSearch, request_method="POST", permission=Permission.ListingAvailabilityRead,
             body_schema=ListingSearchRequest,
             openapi={"summary": "Search listed pharmacies' stock by medicine name or code, optionally nearby",
                      "kind": "listing_match", "many": True, "envelope": "list",
                      "errors": ["not_verified", "workspace_plan_required"]})
def search_listings(context, request):
    query = _search_query(request.validated)
    rows = request.find_service(IListings).search(query)
    return render_list(request, "listing_match", [dict(row, match=query.match) for row in rows])


@view_config(context=ListedPharmacies, request_method="GET", permission=Permission.ListingProfileRead,
             query_schema=ListQuery,
             openapi={"summary": "Pharmacies that listed themselves to the caller's organization",
                      "kind": "listed_pharmacy", "many": True,
                      "errors": ["not_verified", "workspace_plan_required"]})
def listed_pharmacies(context, request):
    return render_page(request, "listed_pharmacy", request.find_service(IListings).pharmacies(request.query))


@view_config(context=ListingProfile, request_method="GET", permission=Permission.ListingProfileRead,
             openapi={"summary": "A connected pharmacy's listing profile", "kind": "listing_profile"})
def listing_profile(context, request):
    return render_one(request, "listing_profile", context.__parent__.clinic)


@view_config(context=ListingItems, request_method="GET", permission=Permission.ListingAvailabilityRead,
             query_schema=ListQuery,
             openapi={"summary": "A connected pharmacy's listed items with their bands (never quantities)",
                      "kind": "listing_item", "many": True})
def listing_items(context, request):
    page = request.find_service(IInventory).list(request.query, linked_only=True)
    return render_page(request, "listing_item", page)
