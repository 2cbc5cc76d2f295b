from clinicrecords.resources import Resource, parse_uuid


class PayerCollection(Resource):
    """/v1/clinics/{clinic_id}/payers"""

    def __getitem__(self, name):
        payer = self.request.find_service(name="payers").get(parse_uuid(name))
        if payer is None:
            raise KeyError(name)
        return PayerResource(self, name, payer)


class PayerResource(Resource):
    def __init__(self, parent, name, payer):
        super().__init__(parent, name)
        self.payer = payer


class CoverageCollection(Resource):
    """/v1/clinics/{clinic_id}/coverages"""

    def __getitem__(self, name):
        coverage = self.request.find_service(name="coverages").get(parse_uuid(name))
        if coverage is None:
            raise KeyError(name)
        return CoverageResource(self, name, coverage)


class CoverageResource(Resource):
    def __init__(self, parent, name, coverage):
        super().__init__(parent, name)
        self.coverage = coverage


class Insurance(Resource):
    """/v1/clinics/{clinic_id}/insurance: a grouping whose only child is payment-advices."""

    def __getitem__(self, name):
        if name == "payment-advices":
            return PaymentAdviceCollection(self, name)
        raise KeyError(name)


class PaymentAdviceCollection(Resource):
    """/v1/clinics/{clinic_id}/insurance/payment-advices"""
