"""Encounters (visits): /v1/clinics/{clinic_id}/encounters."""

from zope.interface import Interface

from clinicrecords.encounters.interfaces import IEncounterService
from clinicrecords.encounters.representations import encounter_fhir, encounter_json
from clinicrecords.encounters.resources import EncounterCollection
from clinicrecords.encounters.schemas import EncounterOut
from clinicrecords.encounters.seed import seed_encounters
from clinicrecords.encounters.services import encounter_service_factory
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("encounters", EncounterCollection)
    config.register_service_factory(encounter_service_factory, iface=IEncounterService, context=Interface)
    config.add_representation("encounter", plain=encounter_json, fhir=encounter_fhir, schema=EncounterOut)
    add_sandbox_seeder(config, seed_encounters)
    config.scan(".views")
