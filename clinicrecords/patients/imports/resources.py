from clinicrecords.resources import Resource, parse_uuid


def patient_import_collection(parent, name):
    """Only a clinic's own key may import: an organization key gets 404 whatever it was granted."""
    if parent.request.identity is None or parent.request.identity.clinic_id is None:
        raise KeyError(name)
    return PatientImportCollection(parent, name)


class PatientImportCollection(Resource):
    """/v1/clinics/{clinic_id}/patient-imports"""

    def __getitem__(self, name):
        job = self.request.find_service(name="patient_imports").get(parse_uuid(name))
        if job is None:
            raise KeyError(name)
        return PatientImportResource(self, name, job)


class PatientImportResource(Resource):
    """/v1/clinics/{clinic_id}/patient-imports/{import_id} (and .../run-valid-rows, a view name)"""

    def __init__(self, parent, name, job):
        super().__init__(parent, name)
        self.job = job
