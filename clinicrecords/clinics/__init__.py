"""Clinics: the tenants, their registry in the control schema and their schemas."""

from clinicrecords.clinics.resources import Clinics


def includeme(config):
    config.add_api_resource("clinics", Clinics)
