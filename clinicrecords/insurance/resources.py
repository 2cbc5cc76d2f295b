from clinicrecords.insurance.interfaces import ICoverages, IPayers
from clinicrecords.insurance.schemas import SANDBOX_COVERAGE_IDS, SANDBOX_PAYER_IDS
from clinicrecords.resources import Branch, Collection, Resource, parse_uuid


class _FoundByInterface(Collection):
    """A collection whose `service` is an interface (resources.Collection looks services up by name).
    Traversal has not set `request.context` yet: the service is asked for this resource's clinic."""

    def __getitem__(self, name):
        record = self.request.find_service(self.service, context=self).get(parse_uuid(name))
        if record is None:
            raise KeyError(name)
        return self.item_resource(self, name, record)


class PayerResource(Resource):
    sandbox_example_id = SANDBOX_PAYER_IDS[0]

    def __init__(self, parent, name, payer):
        super().__init__(parent, name)
        self.payer = payer


class PayerCollection(_FoundByInterface):
    """/v1/clinics/{clinic_id}/payers"""

    service = IPayers
    item_resource = PayerResource
    item_parameter = "payer_id"


class CoverageResource(Resource):
    sandbox_example_id = SANDBOX_COVERAGE_IDS[0]

    def __init__(self, parent, name, coverage):
        super().__init__(parent, name)
        self.coverage = coverage


class CoverageCollection(_FoundByInterface):
    """/v1/clinics/{clinic_id}/coverages"""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = ICoverages
    item_resource = CoverageResource
    item_parameter = "coverage_id"


class PaymentAdviceCollection(Resource):
    """/v1/clinics/{clinic_id}/insurance/payment-advices"""


class Insurance(Branch):
    """/v1/clinics/{clinic_id}/insurance: a grouping whose only child is payment-advices."""

    children = {"payment-advices": PaymentAdviceCollection}
