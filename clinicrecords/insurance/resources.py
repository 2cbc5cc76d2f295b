from clinicrecords.insurance.schemas import SANDBOX_COVERAGE_IDS, SANDBOX_PAYER_IDS
from clinicrecords.resources import Branch, Collection, Resource


class PayerResource(Resource):
    sandbox_example_id = SANDBOX_PAYER_IDS[0]

    def __init__(self, parent, name, payer):
        super().__init__(parent, name)
        self.payer = payer


class PayerCollection(Collection):
    """/v1/clinics/{clinic_id}/payers"""

    service = "payers"
    item_resource = PayerResource
    item_parameter = "payer_id"


class CoverageResource(Resource):
    sandbox_example_id = SANDBOX_COVERAGE_IDS[0]

    def __init__(self, parent, name, coverage):
        super().__init__(parent, name)
        self.coverage = coverage


class CoverageCollection(Collection):
    """/v1/clinics/{clinic_id}/coverages"""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = "coverages"
    item_resource = CoverageResource
    item_parameter = "coverage_id"


class PaymentAdviceCollection(Resource):
    """/v1/clinics/{clinic_id}/insurance/payment-advices"""


class Insurance(Branch):
    """/v1/clinics/{clinic_id}/insurance: a grouping whose only child is payment-advices."""

    children = {"payment-advices": PaymentAdviceCollection}
