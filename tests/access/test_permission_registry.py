"""A route without a declared permission cannot be added by accident: every registered view is walked."""

from pyramid.interfaces import IException
from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.access.interfaces import ALL_PERMISSIONS, PSEUDO_PERMISSIONS, Permission
from clinicrecords.portal.web.resources import PORTAL_PERMISSIONS
from clinicrecords.resources import CLINIC_COLLECTIONS, PUBLIC_CLINIC_PATHS, Root

# The one permission that is not a scope: held by every valid key, for routes that only identify the caller.
NON_SCOPE_PERMISSIONS = PSEUDO_PERMISSIONS


def _is_exception_view(intr):
    """Exception views answer failures; they are reached only after something refused or failed."""
    context = intr["context"]
    if intr["exception_only"]:
        return True
    if isinstance(context, type):
        return issubclass(context, BaseException)
    return hasattr(context, "isOrExtends") and context.isOrExtends(IException)


def _views(registry):
    introspector = registry.introspector
    for view in introspector.get_category("views"):
        intr = view["introspectable"]
        if _is_exception_view(intr):
            continue
        permissions = [related["value"] for related in introspector.related(intr)
                       if related.category_name == "permissions"]
        yield intr, permissions


def _is_public(context):
    return context is Root or getattr(context, "public", False) is True


def _describe(intr):
    context = intr["context"]
    return f"{intr.title} (context {getattr(context, '__name__', context)}, name {intr['name']!r})"


def test_every_view_declares_a_permission(registry):
    views = list(_views(registry))
    assert len(views) > 5
    undeclared = [_describe(intr) for intr, permissions in views if not permissions]
    assert undeclared == [], "views without permission=: " + ", ".join(undeclared)


def _public_clinic_views(registry):
    """(context class, view name) of each path `config.add_public_clinic_path` declared: a clinic collection and
    a view on it (the FHIR base's metadata)."""
    collections = registry[CLINIC_COLLECTIONS]
    return {(collections[collection], view) for collection, view in registry[PUBLIC_CLINIC_PATHS]}


def test_only_public_resources_need_no_permission(registry):
    public_clinic_views = _public_clinic_views(registry)
    assert public_clinic_views, "the FHIR base's metadata is declared public"
    open_views = [_describe(intr) for intr, permissions in _views(registry)
                  if NO_PERMISSION_REQUIRED in permissions and not _is_public(intr["context"])
                  and (intr["context"], intr["name"]) not in public_clinic_views]
    assert open_views == [], "views open to anyone outside the allow-list: " + ", ".join(open_views)


def test_every_permission_named_by_a_view_is_in_the_registry(registry):
    named = {p for intr, permissions in _views(registry) if intr["route_name"] != "portal"
             for p in permissions} - {NO_PERMISSION_REQUIRED}
    assert named - ALL_PERMISSIONS - NON_SCOPE_PERMISSIONS == set()
    assert ALL_PERMISSIONS == {p.value for p in Permission}


def test_every_permission_the_spec_names_is_in_the_registry():
    families = ["allergies", "conditions", "medications", "encounters", "referrals", "patients", "care_providers",
                "coverage"]
    spec = {f"{family}:{access}" for family in families for access in ("read", "write")}
    spec |= {"providers:read", "payers:read", "dispensing:read", "inventory.items:read",
             "inventory.availability:read", "inventory.stock:read", "listing.profile:read",
             "listing.availability:read", "insurance.remittances:write"}
    assert spec <= ALL_PERMISSIONS


def test_the_audit_catches_a_view_without_a_permission(make_app):
    """The audit itself works: an app with a forgotten permission fails it."""
    from pyramid.config import Configurator

    def forgotten(context, request):
        return {}

    class Forgotten:
        pass

    config = Configurator()
    config.add_view(forgotten, context=Forgotten, renderer="json")
    config.add_view(forgotten, context=Forgotten, name="open", renderer="json", permission=NO_PERMISSION_REQUIRED)
    config.commit()
    views = list(_views(config.registry))
    assert [intr["name"] for intr, permissions in views if not permissions] == [""]
    assert [intr["name"] for intr, permissions in views
            if NO_PERMISSION_REQUIRED in permissions and not _is_public(intr["context"])] == ["open"]


def test_portal_views_name_only_portal_permissions(registry):
    """The portal's pages are guarded by the member's session, never by an API scope (and the reverse)."""
    named = {p for intr, permissions in _views(registry) if intr["route_name"] == "portal" for p in permissions}
    assert named - {NO_PERMISSION_REQUIRED} == set(PORTAL_PERMISSIONS)
    assert not named & (ALL_PERMISSIONS | NON_SCOPE_PERMISSIONS)
