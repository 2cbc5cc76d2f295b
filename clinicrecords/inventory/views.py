from pyramid.response import Response
from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.problems import Problem
from clinicrecords.api.pagination import ListQuery, UpdatedSinceListQuery
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.inventory.interfaces import IInventory
from clinicrecords.inventory.resources import (
    InventoryItemCollection,
    InventoryItemResource,
    ItemMovements,
    StockBatches,
)
from clinicrecords.inventory.schemas import MovementCreate, StockBatchCreate


def _service(request):
    return request.find_service(IInventory)


@view_config(context=InventoryItemCollection, request_method="GET", permission=Permission.InventoryItemsRead,
             query_schema=UpdatedSinceListQuery,
             openapi={"summary": "List the clinic's inventory items (band and quantity by permission)",
                      "kind": "inventory_item", "many": True})
def list_items(context, request):
    return render_page(request, "inventory_item", _service(request).list(request.query))


@view_config(context=InventoryItemResource, request_method="GET", permission=Permission.InventoryItemsRead,
             openapi={"summary": "Read an inventory item (band and quantity by permission)",
                      "kind": "inventory_item"})
def get_item(context, request):
    return render_one(request, "inventory_item", context.item)


@view_config(context=InventoryItemResource, request_method="DELETE", permission=Permission.InventoryStockWrite,
             idempotency="optional",
             openapi={"summary": "Delete an item that never had a ledger movement", "status": 204,
                      "errors": ["item_has_stock", "item_has_history"]})
def delete_item(context, request):
    if not _service(request).delete(context.item.id):
        raise Problem("not_found")
    return Response(status=204)


@view_config(context=ItemMovements, request_method="GET", permission=Permission.InventoryStockRead,
             query_schema=ListQuery,
             openapi={"summary": "List the item's stock ledger, oldest first", "kind": "stock_movement",
                      "many": True})
def list_movements(context, request):
    return render_page(request, "stock_movement", _service(request).movements(context.item.id, request.query))


@view_config(context=ItemMovements, request_method="POST", permission=Permission.InventoryStockWrite,
             body_schema=MovementCreate, idempotency="required",
             openapi={"summary": "Record a stock movement (the quantity is the sum of movements)", "status": 201,
                      "kind": "stock_movement",
                      "errors": ["reason_required", "insufficient_stock", "expired_stock_not_transferable"]})
def record_movement(context, request):
    movement = _service(request).record_movement(context.item.id, request.validated)
    return render_one(request, "stock_movement", movement, status=201, plain_only=True)


@view_config(context=StockBatches, request_method="POST", permission=Permission.InventoryStockWrite,
             body_schema=StockBatchCreate, idempotency="required",
             openapi={"summary": "Report the till's stock snapshot (becomes adjustments; the till is fresh)",
                      "status": 201, "kind": "stock_batch", "errors": ["batch_rejected"]})
def post_batch(context, request):
    accepted = _service(request).accept_batch(request.validated)
    return render_one(request, "stock_batch", accepted, status=201, plain_only=True)
