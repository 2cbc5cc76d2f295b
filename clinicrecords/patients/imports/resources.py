from clinicrecords.patients.imports.schemas import SANDBOX_IMPORT_ID
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.patients.interfaces import IPatientImportService
from clinicrecords.resources import Collection, Resource


class PatientImportResource(Resource):
    """/v1/clinics/{clinic_id}/patient-imports/{import_id} (and .../run-valid-rows, a view name)"""

    sandbox_example_id = SANDBOX_IMPORT_ID

    def __init__(self, parent, name, job):
        super().__init__(parent, name)
        self.job = job


class PatientImportCollection(Collection):
    """/v1/clinics/{clinic_id}/patient-imports. Only a clinic's own key may import: an organization key
    gets 404 whatever it was granted."""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = IPatientImportService
    item_resource = PatientImportResource
    item_parameter = "import_id"

    def __init__(self, parent, name):
        identity = clinic_scope(parent).identity
        if identity is None or identity.clinic_id is None:
            raise KeyError(name)
        super().__init__(parent, name)
