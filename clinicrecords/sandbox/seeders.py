"""The seeders the contexts register: each writes its own sandbox records (`seed(db, clinic)`), in the order the
application includes the contexts (patients before the records that name them)."""

# [seed(db, clinic)] in the order added, kept in the registry.
SEEDERS = "sandbox.seeders"


def add_sandbox_seeder(config, seeder):
    """`seeder(db, clinic)` writes the context's sandbox records with fixed ids (`sandbox_id`)."""
    config.registry.setdefault(SEEDERS, []).append(seeder)


def sandbox_seeders(registry):
    return tuple(registry.get(SEEDERS, ()))
