"""The permissions a clinic can grant, registered by the context that defines them.

The platform defines no permission: the access context registers them (`config.add_permission_names`), so
the OpenAPI builder can tell a grantable permission from a pseudo one. (What a 403 names is the access
context's own: its security policy names the missing permission on the refusal.)
"""

REGISTRY_KEY = "api.permission_names"


def add_permission_names(config, grantable):
    config.registry[REGISTRY_KEY] = frozenset(grantable)


def grantable_permissions(registry):
    return registry.get(REGISTRY_KEY) or frozenset()


def includeme(config):
    config.add_directive("add_permission_names", add_permission_names)
