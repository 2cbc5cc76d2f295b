from clinicrecords.resources import Resource, parse_uuid


class PatientCollection(Resource):
    """/v1/clinics/{clinic_id}/patients"""

    def __getitem__(self, name):
        patient = self.request.find_service(name="patients").get(parse_uuid(name))
        if patient is None:
            raise KeyError(name)
        return PatientResource(self, name, patient)


class PatientResource(Resource):
    """/v1/clinics/{clinic_id}/patients/{patient_id}"""

    def __init__(self, parent, name, patient):
        super().__init__(parent, name)
        self.patient = patient
