from clinicrecords.patients.interfaces import IPatientService
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from clinicrecords.resources import Collection, Resource


class PatientResource(Resource):
    """/v1/clinics/{clinic_id}/patients/{patient_id}"""

    # The sandbox patient that documentation examples and the examples test address.
    sandbox_example_id = SANDBOX_PATIENT_IDS[0]

    def __init__(self, parent, name, patient):
        super().__init__(parent, name)
        self.patient = patient


class PatientCollection(Collection):
    """/v1/clinics/{clinic_id}/patients"""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = IPatientService
    item_resource = PatientResource
    item_parameter = "patient_id"
