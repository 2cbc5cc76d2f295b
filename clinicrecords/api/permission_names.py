"""The permissions the API names, registered by the context that defines them.

The platform defines no permission: the access context registers them (`config.add_permission_names`), so
the OpenAPI builder can tell a grantable permission from a pseudo one and a 403 can name what is missing.
"""

from dataclasses import dataclass, field

REGISTRY_KEY = "api.permission_names"


@dataclass(frozen=True)
class PermissionNames:
    grantable: frozenset = frozenset()
    # What a refusal names when the missing permission is not itself grantable.
    refusal_names: dict = field(default_factory=dict)


def add_permission_names(config, grantable, refusal_names=None):
    config.registry[REGISTRY_KEY] = PermissionNames(frozenset(grantable), dict(refusal_names or {}))


def _names(registry):
    return registry.get(REGISTRY_KEY) or PermissionNames()


def grantable_permissions(registry):
    return _names(registry).grantable


def refusal_name(registry, permission):
    return _names(registry).refusal_names.get(permission, permission)


def includeme(config):
    config.add_directive("add_permission_names", add_permission_names)
