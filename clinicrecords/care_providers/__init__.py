"""Patients' outside care providers: /v1/clinics/{clinic_id}/care-providers."""

from zope.interface import Interface

from clinicrecords.care_providers.interfaces import ICareProviderService
from clinicrecords.care_providers.representations import care_provider_fhir, care_provider_json
from clinicrecords.care_providers.resources import CareProviderCollection
from clinicrecords.care_providers.schemas import CareProviderOut
from clinicrecords.care_providers.seed import seed_care_providers
from clinicrecords.care_providers.services import care_provider_service_factory
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("care-providers", CareProviderCollection)
    config.register_service_factory(care_provider_service_factory, iface=ICareProviderService, context=Interface)
    config.add_representation("care_provider", plain=care_provider_json, fhir=care_provider_fhir,
                              schema=CareProviderOut)
    add_sandbox_seeder(config, seed_care_providers)
    config.scan(".views")
