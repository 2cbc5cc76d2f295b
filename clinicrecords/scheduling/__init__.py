"""Appointment booking: clinicians' calendars and /v1/clinics/{clinic_id}/appointments (docs/scheduling.md)."""

from zope.interface import Interface

from clinicrecords.sandbox.interfaces import add_sandbox_seeder
from clinicrecords.scheduling.interfaces import IAppointmentService
from clinicrecords.scheduling.representations import appointment_json
from clinicrecords.scheduling.resources import AppointmentCollection
from clinicrecords.scheduling.schemas import AppointmentOut
from clinicrecords.scheduling.seed import seed_calendars
from clinicrecords.scheduling.services import appointment_service_factory


def includeme(config):
    config.add_clinic_collection("appointments", AppointmentCollection)
    config.register_service_factory(appointment_service_factory, iface=IAppointmentService, context=Interface)
    config.add_representation("appointment", plain=appointment_json, schema=AppointmentOut)
    add_sandbox_seeder(config, seed_calendars)
    config.scan(".views")
