"""The sandbox: every workspace's own fictional clinic, seeded with the same synthetic records.

Each bounded context adds what it owns with `add_sandbox_seeder(config, seed)`, where `seed(db, clinic)` writes
records with fixed ids (`clinicrecords.sandbox.interfaces.sandbox_id`) so documentation examples work in anyone's
sandbox.
"""

from zope.interface import provider

from clinicrecords.access.interfaces import ISandboxSeed
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.sandbox.seeders import sandbox_seeders


@provider(ISandboxSeed)
def seed_sandbox(request, clinic):
    bind_to_clinic(request.db, clinic.id)
    for seeder in sandbox_seeders(request.registry):
        seeder(request.db, clinic)
    request.db.flush()


def includeme(config):
    config.registry.registerUtility(seed_sandbox, ISandboxSeed)
