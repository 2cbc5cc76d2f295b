"""The clinic's own clinicians, read-only: /v1/clinics/{clinic_id}/providers."""

from zope.interface import Interface

from clinicrecords.providers.interfaces import IProviderService
from clinicrecords.providers.representations import provider_fhir, provider_json, provider_role_fhir
from clinicrecords.providers.resources import ProviderCollection
from clinicrecords.providers.schemas import ProviderOut
from clinicrecords.providers.seed import seed_providers
from clinicrecords.providers.services import provider_service_factory
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("providers", ProviderCollection)
    config.register_service_factory(provider_service_factory, iface=IProviderService, context=Interface)
    config.add_representation("provider", plain=provider_json, fhir=provider_fhir, schema=ProviderOut)
    # The FHIR base's PractitionerRole (clinicrecords.exports.sources): the same clinician, in its role.
    config.add_representation("provider_role", plain=provider_json, fhir=provider_role_fhir, schema=ProviderOut)
    add_sandbox_seeder(config, seed_providers)
    config.scan(".views")
