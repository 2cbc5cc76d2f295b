from clinicrecords.api.render import iso
from clinicrecords.inventory.interfaces import IInventory
from clinicrecords.listings.interfaces import IListings


def _location(lat, lng):
    return {"lat": float(lat), "lng": float(lng)} if lat is not None and lng is not None else None


def match_json(row, request):
    return {
        "clinic_id": str(row["clinic_id"]),
        "display_name": row["display_name"],
        "item_id": str(row["item_id"]),
        "match": row["match"],
        "band": row["band"],
        "distance_km": round(row["distance_km"], 3) if row["distance_km"] is not None else None,
        "as_of": iso(row["as_of"]),
    }


def pharmacy_json(row, request):
    service = request.find_service(IListings)
    return {
        "clinic_id": str(row.clinic_id),
        "display_name": row.display_name,
        "location": _location(row.lat, row.lng),
        "till": {"stale": service.stale(row), "last_reported_at": iso(row.till_reported_at)},
    }


def profile_json(clinic, request):
    inventory = request.find_service(IInventory)
    return {
        "clinic_id": str(clinic.id),
        "display_name": clinic.name,
        "kind": clinic.kind,
        "location": _location(clinic.lat, clinic.lng),
        "till": {"stale": inventory.stale(), "last_reported_at": iso(inventory.till.last_reported_at)},
    }


def listing_item_json(item, request):
    """A listing never carries a quantity: the band (unknown while the till is stale) and its as_of."""
    inventory = request.find_service(IInventory)
    return {
        "id": str(item.id),
        "name": item.name,
        "generic_name": item.generic_name,
        "brand_name": item.brand_name,
        "codes": {"gtin": item.gtin, "regulator_numbers": list(item.regulator_numbers or ())},
        "band": inventory.band(item),
        "as_of": iso(inventory.as_of(item)),
    }
