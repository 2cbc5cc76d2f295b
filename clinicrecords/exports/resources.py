"""/v1/clinics/{clinic_id}/fhir: the clinic's FHIR base for Bulk Data clients.

    fhir/metadata, fhir/$export                     views on the base
    fhir/Patient/$export                            the patient compartment's kick-off
    fhir/export-jobs/{job_id}                       the status URL (GET polls, DELETE cancels)
    fhir/export-files/{file_id}                     one NDJSON file of a completed export
"""

from clinicrecords.exports.interfaces import IExportService
from clinicrecords.resources import Branch, Collection, Resource, parse_uuid
from clinicrecords.sandbox.interfaces import sandbox_id


class PatientCompartment(Resource):
    """fhir/Patient: only its $export (the single Patient reads are /v1/clinics/{clinic_id}/patients)."""


class ExportJobResource(Resource):
    # An id no sandbox holds: a job exists only once kicked off (tests/reference/test_code_samples.py).
    sandbox_example_id = sandbox_id("export:1")

    def __init__(self, parent, name, job):
        super().__init__(parent, name)
        self.job = job


class ExportJobCollection(Collection):
    """The calling key's own exports in this clinic; another key's are not found."""

    service = IExportService
    item_resource = ExportJobResource
    item_parameter = "job_id"


class ExportFileResource(Resource):
    sandbox_example_id = sandbox_id("export-file:1")

    def __init__(self, parent, name, export_file):
        super().__init__(parent, name)
        self.export_file = export_file


class ExportFileCollection(Collection):
    """Files of the calling key's completed exports. Every file served is in the audit trail, naming the
    patients it holds."""

    audited = True

    item_resource = ExportFileResource
    item_parameter = "file_id"

    def __getitem__(self, name):
        export_file = self.request.find_service(IExportService, context=self).get_file(parse_uuid(name))
        if export_file is None:
            raise KeyError(name)
        return self.item_resource(self, name, export_file)


class FhirBase(Branch):
    """/v1/clinics/{clinic_id}/fhir"""

    children = {"Patient": PatientCompartment, "export-jobs": ExportJobCollection,
                "export-files": ExportFileCollection}
