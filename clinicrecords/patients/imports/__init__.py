"""Patient imports: /v1/clinics/{clinic_id}/patient-imports (clinic-owned keys only), written by Huey tasks."""

from zope.interface import Interface

from clinicrecords.patients.imports.tasks import write_patient_import  # registers the worker hooks too
from clinicrecords.patients.interfaces import IPatientImportService
from clinicrecords.patients.imports.representations import patient_import_json
from clinicrecords.patients.imports.resources import PatientImportCollection
from clinicrecords.patients.imports.schemas import PatientImportOut
from clinicrecords.patients.imports.seed import seed_patient_imports
from clinicrecords.patients.imports.services import patient_import_service_factory
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("patient-imports", PatientImportCollection)
    config.register_service_factory(patient_import_service_factory(write_patient_import), iface=IPatientImportService,
                                    context=Interface)
    config.add_representation("patient_import", plain=patient_import_json, schema=PatientImportOut)
    add_sandbox_seeder(config, seed_patient_imports)
    config.scan(".views")
