"""/v1/clinics/{clinic_id}/fhir: the clinic's FHIR base for Bulk Data clients and FHIR readers.

    fhir/metadata, fhir/$export                     views on the base
    fhir/Patient/$export                            the patient compartment's kick-off
    fhir/{type}, fhir/{type}/_search                a type's search (GET; POST with a form body)
    fhir/{type}/{id}                                one resource of a type (read)
    fhir/export-jobs/{job_id}                       the status URL (GET polls, DELETE cancels)
    fhir/export-files/{file_id}                     one NDJSON file of a completed export
"""

import re

from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.exports.interfaces import IExportService
from clinicrecords.exports.search import readable_sources
from clinicrecords.exports.sources import BASE_TYPES, SOURCES
from clinicrecords.resources import CLINIC_COLLECTIONS, Branch, Collection, Resource, parse_uuid
from clinicrecords.sandbox.interfaces import sandbox_id


class FhirRecord(Resource):
    """fhir/{type}/{id}: one record, found through the single reads' own collection service."""

    def __init__(self, parent, name, record, source):
        super().__init__(parent, name)
        self.record = record
        self.source = source


class FhirTypeCollection(Collection):
    """fhir/{type}: the records of one exported type. A record is found by the service of the clinic collection
    whose single reads show it (`Source.collection`), so the reads' rules are those reads' own (one 404 for
    absent, restricted, sensitive or out of reach). A type of two sources (Practitioner: the clinic's clinicians
    under providers:read, the patients' care providers under care_providers:read) is looked up in each source
    the key may read, in export order. A key that may read no source of the type is 403 scope_missing before
    any lookup, so the answer says nothing of the id."""

    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)
    fhir_type = ""
    item_parameter = "id"

    def __getitem__(self, name):
        record_id = parse_uuid(name)
        readable = readable_sources(self.fhir_type, clinic_scope(self).granted)
        collections = self.request.registry[CLINIC_COLLECTIONS]
        for source in readable:
            collection = collections[source.collection]
            record = self.request.find_service(collection.service, context=self,
                                               name=collection.service_name).get(record_id)
            if record is not None:
                return self.item_resource(self, name, record, source)
        raise KeyError(name)


class PatientCompartment(FhirTypeCollection):
    """fhir/Patient: the Patient records (fhir/Patient/{id}) and the patient compartment's $export."""

    fhir_type = "Patient"


def snake_case(fhir_type):
    """AllergyIntolerance → allergy_intolerance."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", fhir_type).lower()


def _type_collections():
    """{FHIR type: its collection class} of every type of the base, each with an item class of its own (named in
    the module, as the route table names them)."""
    found = {}
    for fhir_type in BASE_TYPES:
        item = type(f"Fhir{fhir_type}Record", (FhirRecord,), {"__doc__": f"fhir/{fhir_type}/{{id}}",
                                                              "__module__": __name__,
                                                              "operation_id": f"fhir_read_{snake_case(fhir_type)}"})
        base = PatientCompartment if fhir_type == "Patient" else FhirTypeCollection
        searched = f"fhir_search_{snake_case(fhir_type)}"
        collection = type(f"Fhir{fhir_type}Collection", (base,), {
            "__doc__": f"fhir/{fhir_type}", "__module__": __name__, "fhir_type": fhir_type, "item_resource": item,
            "operation_ids": {("GET", ""): searched, ("POST", "_search"): f"{searched}_by_form"}})
        globals()[item.__name__] = item
        globals()[collection.__name__] = collection
        found[fhir_type] = collection
    return found


FHIR_TYPE_COLLECTIONS = _type_collections()


def set_sandbox_examples(registry):
    """Each read's documentation example: the sandbox record its type's single reads use (read from the clinic
    collections the contexts registered, once all are)."""
    collections = registry[CLINIC_COLLECTIONS]
    for fhir_type, collection in FHIR_TYPE_COLLECTIONS.items():
        first = next(source for source in SOURCES if source.fhir_type == fhir_type)
        reads = collections[first.collection].item_resource
        collection.item_resource.sandbox_example_id = getattr(reads, "sandbox_example_id", None)


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
    """/v1/clinics/{clinic_id}/fhir: the export's own URLs, and a collection per exported type."""

    children = {**FHIR_TYPE_COLLECTIONS, "export-jobs": ExportJobCollection, "export-files": ExportFileCollection}
