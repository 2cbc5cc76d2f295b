from pyramid.view import view_config

from clinicrecords.access.permissions import Permission
from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.inventory.resources import InventoryItemCollection, InventoryItemResource


@view_config(context=InventoryItemCollection, request_method="GET", permission=Permission.InventoryItemsRead,
             query_schema=UpdatedSinceListQuery,
             openapi={"summary": "List the clinic's inventory items (band and quantity by permission)",
                      "kind": "inventory_item", "many": True})
def list_items(context, request):
    return render_page(request, "inventory_item", request.find_service(name="inventory").list(request.query))


@view_config(context=InventoryItemResource, request_method="GET", permission=Permission.InventoryItemsRead,
             openapi={"summary": "Read an inventory item (band and quantity by permission)",
                      "kind": "inventory_item"})
def get_item(context, request):
    return render_one(request, "inventory_item", context.item)
