from clinicrecords.resources import Resource, parse_uuid


class PrescriptionCollection(Resource):
    """/v1/clinics/{clinic_id}/prescriptions"""

    def __getitem__(self, name):
        prescription = self.request.find_service(name="prescriptions").get(parse_uuid(name))
        if prescription is None:
            raise KeyError(name)
        return PrescriptionResource(self, name, prescription)


class PrescriptionResource(Resource):
    """/v1/clinics/{clinic_id}/prescriptions/{prescription_id}"""

    def __init__(self, parent, name, prescription):
        super().__init__(parent, name)
        self.prescription = prescription
