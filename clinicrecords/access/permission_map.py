"""Authorization in one place: who holds each permission, and the one check a request passes.

As hypothesis/h's `security/permission_map`: a permission is held when its predicate is true of the calling
key and the resource asked (the context). A grantable permission (`Permission`) is held when the clinic the
context lies in granted it to the key (the clinic scope's `granted`), or, outside a clinic, when the key's own
scopes name it. The pseudo- and derived permissions have their own predicate in `PERMISSION_MAP`.

`refusal(...)` is the one check: the view's permission when a view answers, and before it the collection
guard — entering a clinic's collection needs at least one of the permissions its views declare, so a key
that may not look there gets the same 403 for an existing, a restricted and an absent record
(docs/authentication.md, precedence 5 before 6). A request no view answers (404, 405) passes the guard
alone (`look_refusal`).
"""

from typing import NamedTuple

from pyramid.location import lineage

from clinicrecords.access.permissions import (EVENTS_FEED, KEY_HOLDER, TEST_HELPERS, DerivedPermission,
                                              refusal_name)
from clinicrecords.clinics.interfaces import IClinicContext, clinic_scope


def granted(identity, context):
    """The grantable permissions the key holds where the context lies."""
    scope = clinic_scope(context)
    return scope.granted if scope is not None else identity.scopes


def may_use_helpers(identity, clinic):
    """A workspace's test key on that workspace's own sandbox clinic; never a live or clinic-owned key."""
    return (identity is not None and identity.is_test and identity.clinic_id is None
            and clinic is not None and clinic.sandbox_of_workspace_id is not None
            and clinic.id == identity.sandbox_clinic_id
            and clinic.sandbox_of_workspace_id == identity.workspace_id)


def _any_key(identity, context):
    return True


def _on_own_sandbox(identity, context):
    scope = clinic_scope(context)
    return scope is not None and may_use_helpers(identity, scope.clinic)


def _conferred(permission):
    """A derived permission: held with any of the grantable permissions the nearest resource declaring it in
    `confers` ({derived permission: granting permissions}) names; none declares it, none holds it."""

    def holds(identity, context):
        for node in lineage(context):
            confers = getattr(node, "confers", None)
            if confers and permission in confers:
                return not granted(identity, context).isdisjoint(confers[permission])
        return False

    return holds


PERMISSION_MAP = {
    KEY_HOLDER: _any_key,  # /v1/me, /v1/connections: any valid key
    EVENTS_FEED: _any_key,  # a clinic's event feed: any key that reached the clinic (spec: no one permission)
    TEST_HELPERS: _on_own_sandbox,
    **{permission: _conferred(permission) for permission in DerivedPermission},
}


def holds(identity, context, permission):
    predicate = PERMISSION_MAP.get(permission)
    if predicate is not None:
        return predicate(identity, context)
    return permission in granted(identity, context)


class Declared(NamedTuple):
    """The permissions the views on a resource class declare: by method, all of them, and those of them that
    `PERMISSION_MAP` decides (not simply granted)."""

    by_method: dict
    every: frozenset
    mapped: frozenset


# {resource class: Declared}, read once from Pyramid's registrations and kept in the registry.
VIEW_PERMISSIONS = "access.view_permissions"


def view_permissions(registry, resource_class):
    """What the views on a resource class declare (`Declared`), read once from Pyramid's registrations."""
    cache = registry.setdefault(VIEW_PERMISSIONS, {})
    if resource_class not in cache:
        introspector = registry.introspector
        by_method = {}
        for view in introspector.get_category("views"):
            intr = view["introspectable"]
            context = intr["context"]
            if intr["exception_only"] or not (isinstance(context, type) and issubclass(resource_class, context)):
                continue
            methods = intr["request_methods"] or ("GET",)
            for related in introspector.related(intr):
                if related.category_name == "permissions":
                    for method in (methods,) if isinstance(methods, str) else methods:
                        by_method.setdefault(method, set()).add(related["value"])
        every = frozenset().union(*by_method.values())
        cache[resource_class] = Declared(by_method, every, every & PERMISSION_MAP.keys())
    return cache[resource_class]


def _collection_and_scope(context):
    """The clinic collection the context lies in (the clinic resource's child, or None) and the clinic's scope
    (None outside a clinic), in one walk up the tree."""
    child = None
    for node in lineage(context):
        if IClinicContext.providedBy(node):
            return child, node.scope
        child = node
    return None, None


def _guard_refusal(registry, identity, collection, granted_here, method):
    """The permission to name when the key holds none of its collection's permissions, else None."""
    declared = view_permissions(registry, type(collection))
    if not declared.every or not granted_here.isdisjoint(declared.every) or any(
            PERMISSION_MAP[p](identity, collection) for p in declared.mapped):
        return None
    by_method = declared.by_method
    wanted = by_method.get("GET", set()) if method in ("GET", "HEAD") else set().union(
        *(perms for each, perms in by_method.items() if each != "GET"))
    return sorted(wanted or declared.every)[0]


def refusal(registry, identity, context, method, permission=None):
    """The permission the key lacks for this request, or None when it may: the collection guard, then the
    view's `permission` (None when no view answers)."""
    collection, scope = _collection_and_scope(context)
    if collection is not None:
        missing = _guard_refusal(registry, identity, collection, scope.granted, method)
        if missing is not None:
            return missing
    if permission is None:
        return None
    predicate = PERMISSION_MAP.get(permission)
    if predicate is not None:
        held = predicate(identity, context)
    else:
        held = permission in (scope.granted if scope is not None else identity.scopes)
    return None if held else permission


def look_refusal(request, context):
    """The not-found view's guard (`config.set_look_guard`): before a 404 or 405 inside a clinic's collection,
    the permission to name when the key may not look there, else None. Outside a clinic nothing is hidden,
    and no key is read for it."""
    scope = clinic_scope(context)
    if scope is None:
        return None
    missing = refusal(request.registry, scope.identity, context, request.method)
    return refusal_name(missing) if missing is not None else None


def replay_allowed(request, context):
    """The not-found view's replay guard (`config.set_replay_guard`): a stored Idempotency-Key answer is
    replayed only inside a clinic the key reaches now (traversal built its scope after checking the reach)."""
    return clinic_scope(context) is not None
