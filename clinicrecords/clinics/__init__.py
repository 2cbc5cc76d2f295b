"""Clinics: the tenants, their registry in the control schema and their schemas."""


def includeme(config):
    from clinicrecords.clinics.resources import Clinics

    config.add_api_resource("clinics", Clinics)
