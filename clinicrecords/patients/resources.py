from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from clinicrecords.resources import Resource, parse_uuid


class PatientResource(Resource):
    """/v1/clinics/{clinic_id}/patients/{patient_id}"""

    # The sandbox patient that documentation examples and the examples test address.
    sandbox_example_id = SANDBOX_PATIENT_IDS[0]

    def __init__(self, parent, name, patient):
        super().__init__(parent, name)
        self.patient = patient


class PatientCollection(Resource):
    """/v1/clinics/{clinic_id}/patients"""

    item_resource = PatientResource
    item_parameter = "patient_id"

    def __getitem__(self, name):
        patient = self.request.find_service(name="patients").get(parse_uuid(name))
        if patient is None:
            raise KeyError(name)
        return PatientResource(self, name, patient)
