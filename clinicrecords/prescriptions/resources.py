from clinicrecords.prescriptions.interfaces import IPrescriptionService
from clinicrecords.prescriptions.schemas import SANDBOX_PRESCRIPTION_IDS
from clinicrecords.resources import Collection, Resource


class PrescriptionResource(Resource):
    """/v1/clinics/{clinic_id}/prescriptions/{prescription_id}"""

    sandbox_example_id = SANDBOX_PRESCRIPTION_IDS[0]

    def __init__(self, parent, name, prescription):
        super().__init__(parent, name)
        self.prescription = prescription


class PrescriptionCollection(Collection):
    """/v1/clinics/{clinic_id}/prescriptions"""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = IPrescriptionService
    item_resource = PrescriptionResource
    item_parameter = "prescription_id"
