from clinicrecords.resources import Resource, parse_uuid


class Inventory(Resource):
    """/v1/clinics/{clinic_id}/inventory"""

    def __getitem__(self, name):
        if name == "items":
            return InventoryItemCollection(self, name)
        raise KeyError(name)


class InventoryItemCollection(Resource):
    """/v1/clinics/{clinic_id}/inventory/items"""

    def __getitem__(self, name):
        item = self.request.find_service(name="inventory", context=self).get(parse_uuid(name))
        if item is None:
            raise KeyError(name)
        return InventoryItemResource(self, name, item)


class InventoryItemResource(Resource):
    """/v1/clinics/{clinic_id}/inventory/items/{item_id}"""

    def __init__(self, parent, name, item):
        super().__init__(parent, name)
        self.item = item
