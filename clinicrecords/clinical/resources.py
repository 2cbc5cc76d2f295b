from clinicrecords.clinical.schemas import (
    SANDBOX_ALLERGY_ID,
    SANDBOX_CONDITION_ID,
    SANDBOX_MEDICATION_STATEMENT_ID,
    SANDBOX_REFERRAL_ID,
)
from clinicrecords.clinical.interfaces import IChartItems
from clinicrecords.resources import Collection, Resource


class ItemResource(Resource):
    def __init__(self, parent, name, item):
        super().__init__(parent, name)
        self.item = item


class AllergyResource(ItemResource):
    sandbox_example_id = SANDBOX_ALLERGY_ID


class ConditionResource(ItemResource):
    sandbox_example_id = SANDBOX_CONDITION_ID


class MedicationStatementResource(ItemResource):
    sandbox_example_id = SANDBOX_MEDICATION_STATEMENT_ID


class ReferralResource(ItemResource):
    sandbox_example_id = SANDBOX_REFERRAL_ID


class ChartItemCollection(Collection):
    """A kind's items, read through the `IChartItems` service registered under the kind's resource type."""

    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)
    service = IChartItems


class AllergyCollection(ChartItemCollection):
    service_name, item_resource, item_parameter = "allergy", AllergyResource, "allergy_id"


class ConditionCollection(ChartItemCollection):
    service_name, item_resource, item_parameter = "condition", ConditionResource, "condition_id"


class MedicationStatementCollection(ChartItemCollection):
    service_name, item_resource = "medication_statement", MedicationStatementResource
    item_parameter = "medication_statement_id"


class ReferralCollection(ChartItemCollection):
    service_name, item_resource, item_parameter = "referral", ReferralResource, "referral_id"
