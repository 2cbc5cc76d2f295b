"""The permissions a clinic can grant, registered by the context that defines them, each with its
description in plain words.

The platform defines no permission: the access context registers them (`add_permission_names(config, ...)`), so
the OpenAPI builder can tell a grantable permission from a pseudo one and say what each one allows. (What a
403 names is the access context's own: its security policy names the missing permission on the refusal.)
"""

# {permission name: what it allows}, as access registered them.
REGISTRY_KEY = "api.permission_names"


def add_permission_names(config, descriptions):
    """`descriptions`: every grantable permission → what it allows, in plain words."""
    config.registry[REGISTRY_KEY] = {str(name): text for name, text in descriptions.items()}


def grantable_permissions(registry):
    return frozenset(registry.get(REGISTRY_KEY) or ())


def permission_descriptions(registry):
    """Every grantable permission → its description, sorted by name."""
    return dict(sorted((registry.get(REGISTRY_KEY) or {}).items()))
