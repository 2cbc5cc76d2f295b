"""Clinics: the tenants, their registry in the control schema and their schemas. A request enters a clinic
through access (clinicrecords.access.entry), which reads the clinic with the key."""


def includeme(config):
    """Nothing to register: the clinics' rows and schemas are used through `clinics.services`."""
