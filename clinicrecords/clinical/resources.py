from clinicrecords.clinical.schemas import (
    SANDBOX_ALLERGY_ID,
    SANDBOX_CONDITION_ID,
    SANDBOX_MEDICATION_STATEMENT_ID,
    SANDBOX_REFERRAL_ID,
)
from clinicrecords.clinical.interfaces import IAllergies, IConditions, IMedicationStatements, IReferrals
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


class AllergyCollection(Collection):
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)
    service, item_resource, item_parameter = IAllergies, AllergyResource, "allergy_id"


class ConditionCollection(Collection):
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)
    service, item_resource, item_parameter = IConditions, ConditionResource, "condition_id"


class MedicationStatementCollection(Collection):
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)
    service, item_resource = IMedicationStatements, MedicationStatementResource
    item_parameter = "medication_statement_id"


class ReferralCollection(Collection):
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)
    service, item_resource, item_parameter = IReferrals, ReferralResource, "referral_id"
