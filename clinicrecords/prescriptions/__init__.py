"""Prescriptions, read-only: /v1/clinics/{clinic_id}/prescriptions."""

from zope.interface import Interface

from clinicrecords.prescriptions.interfaces import IPrescriptionService
from clinicrecords.prescriptions.representations import prescription_fhir, prescription_json
from clinicrecords.prescriptions.resources import PrescriptionCollection
from clinicrecords.prescriptions.schemas import PrescriptionOut
from clinicrecords.prescriptions.seed import seed_prescriptions
from clinicrecords.prescriptions.services import prescription_service_factory
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("prescriptions", PrescriptionCollection)
    config.register_service_factory(prescription_service_factory, iface=IPrescriptionService, context=Interface)
    config.add_representation("prescription", plain=prescription_json, fhir=prescription_fhir,
                              schema=PrescriptionOut)
    add_sandbox_seeder(config, seed_prescriptions)
    config.scan(".views")
