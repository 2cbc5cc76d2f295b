from clinicrecords.access.interfaces import Permission
from clinicrecords.api.render import iso
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.inventory.interfaces import IInventory


def granted(request):
    return clinic_scope(request.context).granted


def item_json(item, request):
    """Band and quantity only as the clinic's grant allows; a field the key may not see is absent."""
    service = request.find_service(IInventory)
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


def movement_json(movement, request):
    """`quantity_after` reveals the exact stock: only with inventory.stock:read."""
    document = {
        "id": str(movement.id),
        "item_id": str(movement.item_id),
        "kind": movement.kind,
        "quantity": abs(movement.change),
        "change": movement.change,
        "lot": movement.lot,
        "expires_on": movement.expires_on.isoformat() if movement.expires_on else None,
        "reason": movement.reason,
        "reference": movement.reference,
        "source": movement.source,
        "batch_id": str(movement.batch_id) if movement.batch_id else None,
        "created_at": iso(movement.created_at),
    }
    if Permission.InventoryStockRead in granted(request):
        document["quantity_after"] = movement.quantity_after
    return document


def batch_json(accepted, request):
    return {
        "id": str(accepted.batch.id),
        "reference": accepted.batch.reference,
        "items": [{"item_id": str(item_id), "quantity": quantity, "change": change}
                  for item_id, quantity, change in accepted.lines],
        "till_was_stale": accepted.till_was_stale,
        "created_at": iso(accepted.batch.created_at),
    }
