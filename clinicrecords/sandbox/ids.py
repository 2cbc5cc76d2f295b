"""Fixed ids of the sandbox seed: the same in every workspace's sandbox clinic."""

import uuid

_NAMESPACE = uuid.UUID("6f1c7a52-3c1e-4d8e-9a55-0c1f2b7d9e01")


def sandbox_id(name):
    """A stable id for a seeded record, e.g. sandbox_id("patient:1")."""
    return uuid.uuid5(_NAMESPACE, name)
