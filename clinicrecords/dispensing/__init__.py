"""Dispensing flags: refill/duplicate-dispensing checks. /v1/clinics/{clinic_id}/dispensing/flags."""

from zope.interface import Interface

from clinicrecords.dispensing.interfaces import IDispensingFlags
from clinicrecords.dispensing.representations import dispensing_flag_json
from clinicrecords.dispensing.resources import Dispensing
from clinicrecords.dispensing.schemas import DispensingFlagOut
from clinicrecords.dispensing.seed import seed_dispensing
from clinicrecords.dispensing.services import dispensing_flag_service_factory
from clinicrecords.sandbox.interfaces import add_sandbox_seeder


def includeme(config):
    config.add_clinic_collection("dispensing", Dispensing)
    # context=Interface: the factory is handed the resource it is asked from and finds the clinic above it.
    config.register_service_factory(dispensing_flag_service_factory, iface=IDispensingFlags, context=Interface)
    config.add_representation("dispensing_flag", plain=dispensing_flag_json, schema=DispensingFlagOut)
    add_sandbox_seeder(config, seed_dispensing)
    config.scan(".views")
