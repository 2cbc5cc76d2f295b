"""Who may do what, on both surfaces: the one file that says it.

Shaped as hypothesis/h's `security/permission_map`: each permission maps to clauses, each clause a list of
predicates (clinicrecords.access.predicates) of the caller and the resource asked (the context); the
permission is held when every predicate of at least one clause is true. Read from the top:

1. Reach: which clinic a key enters, with which permissions (`reach_of_key`; the test helpers'
   `reach_of_helpers`). The entry (clinicrecords.access.entry) decides it from the key's own statement.
2. Rows: what a key sees inside a clinic it entered (`shown_to_keys`, the restricted-patient rule every read
   of a patient's records goes through; `sent_by`, a referral's sender).
3. `PERMISSION_MAP`: the API's permissions (the caller is a key) and the portal's roles (a signed-in account).
4. The check each request passes: `refusal` for the API (the collection guard, then the view's permission;
   `look_refusal` alone where no view answers), `holds` for the portal.
"""

from typing import NamedTuple

from pyramid.location import lineage

from clinicrecords.access import predicates as p
from clinicrecords.access.permissions import (BULK_EXPORT, EVENTS_FEED, KEY_HOLDER, TEST_HELPERS, DerivedPermission,
                                              Permission, PortalPermission, refusal_name)
from clinicrecords.api.problems import Problem
from clinicrecords.clinics.interfaces import IClinicContext, clinic_scope

# 1. Reach (spec: Authentication → Reach). Precedence when several refusals apply (docs/authentication.md): the
# entry's gate first (invalid_key, ip_not_allowed, rate_limited), then sandbox_only, not_verified,
# workspace_plan_required (all about the key itself, so they leak nothing about the clinic), then not_found
# (the clinic is outside reach, or does not exist: one answer for both), then scope_missing (the map below).


def live_access_blocked(identity):
    """Why a live workspace key reaches no real clinic now (a `Problem`), or None. Checked in this order."""
    if identity.clinic_id is not None or identity.is_test:
        return None
    if not identity.workspace_verified:
        return Problem("not_verified", "The workspace's verification is absent or has lapsed.")
    if identity.workspace_plan != "paid" or not identity.workspace_terms_accepted:
        return Problem("workspace_plan_required",
                       "Live access needs a paid plan with the API Terms of Use accepted.")
    return None


def reach_of_key(identity, found):
    """(clinic, the permissions it grants the key) for the clinic the path names, from what the key's statement
    found of it (`identity.ClinicFound`); else the refusal (a `Problem`, or KeyError for 404).

    - a clinic's own key reaches its clinic, with the key's scopes;
    - a workspace's test key reaches its workspace's sandbox clinic only, with the key's scopes;
    - a live workspace key reaches a real clinic its workspace holds an active connection to, while the
      workspace is verified and on the paid plan with the terms accepted, with the key's scopes narrowed to
      what the connection grants."""
    clinic = found.clinic
    if identity.clinic_id is not None:
        if found.clinic_id != identity.clinic_id or clinic is None:
            raise KeyError(found.clinic_id)
        return clinic, identity.scopes
    if identity.is_test:
        if found.clinic_id != identity.sandbox_clinic_id:
            raise Problem("sandbox_only", "A test key reaches only its workspace's sandbox clinic.")
        if clinic is None:
            raise KeyError(found.clinic_id)
        return clinic, identity.scopes
    blocked = live_access_blocked(identity)
    if blocked is not None:
        raise blocked
    if clinic is None or clinic.is_sandbox or found.connection_scopes is None:
        raise KeyError(found.clinic_id)
    return clinic, identity.scopes & frozenset(found.connection_scopes)


def reach_of_helpers(identity, found):
    """/v1/test_helpers/clinics/{clinic_id}: a workspace's test key on its own sandbox clinic, with its scopes;
    any other key or clinic answers like an absent one (404 never tells which clinics exist)."""
    if not p.may_use_helpers(identity, found.clinic):
        raise KeyError(found.clinic_id)
    return found.clinic, identity.scopes


# 2. Rows


def shown_to_keys(restricted):
    """A patient marked restricted, and everything recorded about them, is hidden from every API key (clinic
    staff see them in the console). `restricted` is the patient's column: the patients context applies this to
    its table (`patients.services.visible`), and every other context's reads of a patient's records join it."""
    return restricted.is_(False)


def sent_by(identity, sender_owner_id):
    """A referral's sender (the workspace or clinic whose key sent it) alone reads why the clinic declined it,
    and alone changes or takes it back."""
    return identity is not None and sender_owner_id == identity.owner_id


# 3. The map

PERMISSION_MAP = {
    # The API. A grantable permission is held where the clinic granted it to the key (`scope.granted`: what
    # reach decided above); outside a clinic (/v1/listings), when the key's own scopes name it.
    **{permission: [[p.granted(permission)]] for permission in Permission},
    KEY_HOLDER: [[p.any_key]],  # /v1/me, /v1/connections
    EVENTS_FEED: [[p.any_key]],  # a clinic's event feed: the spec names no one permission; reaching it is enough
    BULK_EXPORT: [[p.any_key]],  # a clinic's FHIR base: each type of an export is checked against its read permission
    TEST_HELPERS: [[p.test_key_on_its_own_sandbox]],
    # A submission is read with the read or write permission of the kind sent, changed or withdrawn with its
    # write one: its resource says which (`confers`).
    **{derived: [[p.conferred(derived)]] for derived in DerivedPermission},
    # The portal. Traversal finds a workspace or a clinic's console only for an account it belongs to.
    PortalPermission.SignedIn: [[p.signed_in, p.not_staff_in_developer_places]],
    PortalPermission.Member: [[p.signed_in, p.workspace_member]],
    PortalPermission.Owner: [[p.signed_in, p.workspace_owner]],
    PortalPermission.ClinicStaff: [[p.signed_in, p.on_clinic_staff]],
    PortalPermission.ClinicAdmin: [[p.signed_in, p.clinic_admin]],
    PortalPermission.Clinician: [[p.signed_in, p.clinician]],
}

GRANTABLE = frozenset(Permission)


def holds(caller, context, permission):
    """Whether `caller` holds `permission` on `context`: some clause of the map has every predicate true. A
    permission the map does not name is held by nobody (a view without one: `NO_DEFAULT_PERMISSION`)."""
    for clause in PERMISSION_MAP.get(permission, ()):
        for predicate in clause:
            if not predicate(caller, context):
                break
        else:
            return True
    return False


# 4. The API's check. Entering a clinic's collection needs at least one of the permissions its views declare,
# so a key that may not look there gets the same 403 for an existing, a restricted and an absent record
# (docs/authentication.md, precedence 5 before 6); then the view's permission.


class Declared(NamedTuple):
    """The permissions the views on a resource class declare: by method, all of them, and those of them that
    are not grantable (decided by their own predicates)."""

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
        cache[resource_class] = Declared(by_method, every, every - GRANTABLE)
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


def _guard_refusal(identity, collection, granted_here, declared, method):
    """The permission to name when the key holds none of its collection's permissions, else None."""
    if not declared.every or not granted_here.isdisjoint(declared.every) or any(
            holds(identity, collection, permission) for permission in declared.mapped):
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
        missing = _guard_refusal(identity, collection, scope.granted, view_permissions(registry, type(collection)),
                                 method)
        if missing is not None:
            return missing
    if permission is None or holds(identity, context, permission):
        return None
    return permission


def look_refusal(request, context):
    """The not-found view's guard (`set_look_guard`): before a 404 or 405 inside a clinic's collection,
    the permission to name when the key may not look there, else None. Outside a clinic nothing is hidden,
    and no key is read for it."""
    scope = clinic_scope(context)
    if scope is None:
        return None
    missing = refusal(request.registry, scope.identity, context, request.method)
    return refusal_name(missing) if missing is not None else None


def replay_allowed(request, context):
    """The not-found view's replay guard (`set_replay_guard`): a stored Idempotency-Key answer is
    replayed only inside a clinic the key reaches now (traversal built its scope after checking the reach)."""
    return clinic_scope(context) is not None
