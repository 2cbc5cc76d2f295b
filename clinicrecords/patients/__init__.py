"""Patients and patient imports: /v1/clinics/{clinic_id}/patients."""

from zope.interface import Interface

from clinicrecords.patients import imports  # noqa: F401  (patient imports: models, tasks)
from clinicrecords.patients.interfaces import IPatientService
from clinicrecords.patients.representations import patient_fhir, patient_json
from clinicrecords.patients.resources import PatientCollection
from clinicrecords.patients.schemas import PatientOut
from clinicrecords.patients.seed import seed_patients
from clinicrecords.patients.services import patient_service_factory
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("patients", PatientCollection)
    # context=Interface: the factory is handed the resource, whose clinic scope it builds from (registered
    # for context=None it would be handed None).
    config.register_service_factory(patient_service_factory, iface=IPatientService, context=Interface)
    config.add_representation("patient", plain=patient_json, fhir=patient_fhir, schema=PatientOut)
    add_sandbox_seeder(config, seed_patients)
    config.scan(".views")
    config.include(".imports")
