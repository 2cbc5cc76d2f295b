from pyramid.traversal import find_interface

from clinicrecords.access.permissions import Permission
from clinicrecords.api.render import iso


def granted(request):
    from clinicrecords.clinics.resources import ClinicResource

    return find_interface(request.context, ClinicResource).granted


def item_json(item, request):
    """Band and quantity only as the clinic's grant allows; a field the key may not see is absent."""
    service = request.find_service(name="inventory")
    scopes = granted(request)
    document = {
        "id": str(item.id),
        "name": item.name,
        "generic_name": item.generic_name,
        "brand_name": item.brand_name,
        "codes": {"gtin": item.gtin, "regulator_numbers": list(item.regulator_numbers or ())},
        "linked": item.linked,
        "low_at": item.low_at,
        "created_at": iso(item.created_at),
        "updated_at": iso(item.updated_at),
    }
    if Permission.InventoryAvailabilityRead in scopes:
        document["band"] = service.band(item)
        document["as_of"] = iso(service.as_of(item))
    if Permission.InventoryStockRead in scopes:
        document["quantity"] = item.quantity
    return document
