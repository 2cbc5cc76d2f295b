"""Inventory: the clinic's items, stock bands and till freshness: /v1/clinics/{clinic_id}/inventory/items."""

from zope.interface import Interface

from clinicrecords.inventory.interfaces import IInventory
from clinicrecords.inventory.representations import batch_json, item_json, movement_json
from clinicrecords.inventory.resources import Inventory
from clinicrecords.inventory.schemas import InventoryItemOut, MovementOut, StockBatchOut
from clinicrecords.inventory.seed import seed_inventory
from clinicrecords.inventory.services import inventory_service_factory, network_projection
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("inventory", Inventory)
    # Per context: the factory finds the clinic above the resource it is asked from.
    config.register_service_factory(inventory_service_factory, iface=IInventory, context=Interface)
    config.add_representation("inventory_item", plain=item_json, schema=InventoryItemOut)
    config.add_representation("stock_movement", plain=movement_json, schema=MovementOut)
    config.add_representation("stock_batch", plain=batch_json, schema=StockBatchOut)
    registry = config.registry
    # Looked up when a sandbox is seeded: listings registers the projection after this context is included.
    add_sandbox_seeder(config, lambda db, clinic: seed_inventory(db, network_projection(registry), clinic))
    config.scan(".views")
    config.scan(".tasks")
