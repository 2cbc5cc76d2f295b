"""Dispensing flags: refill/duplicate-dispensing checks. /v1/clinics/{clinic_id}/dispensing/flags."""

from clinicrecords.dispensing.representations import dispensing_flag_json
from clinicrecords.dispensing.resources import Dispensing
from clinicrecords.dispensing.schemas import DispensingFlagOut
from clinicrecords.dispensing.seed import seed_dispensing
from clinicrecords.dispensing.services import dispensing_flag_service_factory


def includeme(config):
    config.add_clinic_collection("dispensing", Dispensing)
    config.register_service_factory(dispensing_flag_service_factory, name="dispensing_flags")
    config.add_representation("dispensing_flag", plain=dispensing_flag_json, schema=DispensingFlagOut)
    config.add_sandbox_seeder(seed_dispensing)
    config.scan(".views")
