from clinicrecords.inventory.interfaces import IInventory
from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS
from clinicrecords.resources import Branch, Collection, Resource


class ItemMovements(Resource):
    """/v1/clinics/{clinic_id}/inventory/items/{item_id}/movements: the item's stock ledger."""

    @property
    def item(self):
        return self.__parent__.item


class InventoryItemResource(Branch):
    """/v1/clinics/{clinic_id}/inventory/items/{item_id}"""

    sandbox_example_id = next(iter(SANDBOX_ITEM_IDS.values()))
    children = {"movements": ItemMovements}

    def __init__(self, parent, name, item):
        super().__init__(parent, name)
        self.item = item


class StockBatches(Resource):
    """/v1/clinics/{clinic_id}/inventory/stock-batches: the till's snapshots (POST only)."""


class InventoryItemCollection(Collection):
    """/v1/clinics/{clinic_id}/inventory/items"""

    service = IInventory
    item_resource = InventoryItemResource
    item_parameter = "item_id"


class Inventory(Branch):
    """/v1/clinics/{clinic_id}/inventory"""

    children = {"items": InventoryItemCollection, "stock-batches": StockBatches}
