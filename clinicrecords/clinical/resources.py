from clinicrecords.resources import Resource, parse_uuid


class ItemCollection(Resource):
    """/v1/clinics/{clinic_id}/<items>: `service` names the item service of the kind."""

    service = None

    def __getitem__(self, name):
        item = self.request.find_service(name=self.service).get(parse_uuid(name))
        if item is None:
            raise KeyError(name)
        return self.item_class(self, name, item)


class ItemResource(Resource):
    def __init__(self, parent, name, item):
        super().__init__(parent, name)
        self.item = item


class AllergyResource(ItemResource):
    pass


class ConditionResource(ItemResource):
    pass


class MedicationStatementResource(ItemResource):
    pass


class ReferralResource(ItemResource):
    pass


class AllergyCollection(ItemCollection):
    service, item_class = "allergies", AllergyResource


class ConditionCollection(ItemCollection):
    service, item_class = "conditions", ConditionResource


class MedicationStatementCollection(ItemCollection):
    service, item_class = "medication_statements", MedicationStatementResource


class ReferralCollection(ItemCollection):
    service, item_class = "referrals", ReferralResource
