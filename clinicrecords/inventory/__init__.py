"""Inventory: the clinic's items, stock bands and till freshness: /v1/clinics/{clinic_id}/inventory/items."""


def includeme(config):
    # Imported here: the package is imported by its sibling context before the configuration runs.
    from clinicrecords.inventory.representations import item_json
    from clinicrecords.inventory.resources import Inventory
    from clinicrecords.inventory.schemas import InventoryItemOut
    from clinicrecords.inventory.seed import seed_inventory
    from clinicrecords.inventory.services import inventory_service_factory

    config.add_clinic_collection("inventory", Inventory)
    from zope.interface import Interface

    # Per context: the factory finds the clinic above the resource it is asked from.
    config.register_service_factory(inventory_service_factory, name="inventory", context=Interface)
    config.add_representation("inventory_item", plain=item_json, schema=InventoryItemOut)
    config.add_sandbox_seeder(seed_inventory)
    config.scan(".views")
    config.scan(".tasks")
