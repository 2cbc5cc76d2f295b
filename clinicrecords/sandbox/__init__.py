"""The sandbox: every workspace's own fictional clinic, seeded with the same synthetic records.

Each bounded context adds what it owns with `config.add_sandbox_seeder(seed)`, where `seed(db, clinic)` writes
records with fixed ids (`clinicrecords.sandbox.interfaces.sandbox_id`) so documentation examples work in anyone's
sandbox.
"""

from zope.interface import provider

from clinicrecords.access.interfaces import ISandboxSeed
from clinicrecords.db.tenancy import bind_to_clinic


def _add_sandbox_seeder(config, seeder):
    config.registry["sandbox.seeders"].append(seeder)


@provider(ISandboxSeed)
def seed_sandbox(request, clinic):
    bind_to_clinic(request.db, clinic.id)
    for seeder in request.registry["sandbox.seeders"]:
        seeder(request.db, clinic)
    request.db.flush()


def includeme(config):
    config.registry["sandbox.seeders"] = []
    config.add_directive("add_sandbox_seeder", _add_sandbox_seeder)
    config.registry.registerUtility(seed_sandbox, ISandboxSeed)
