"""Authorization is one map (issue 32, item 2): every permission any view of either surface declares is decided
by clinicrecords.access.permission_map, and the API's security policy asks it for every one."""

import types

from pyramid.security import NO_PERMISSION_REQUIRED
from zope.interface import alsoProvides

from clinicrecords.access.interfaces import Permission
from clinicrecords.access.permission_map import PERMISSION_MAP, holds
from clinicrecords.clinics.interfaces import IClinicContext


def _declared_permissions(registry):
    introspector = registry.introspector
    for view in introspector.get_category("views"):
        intr = view["introspectable"]
        if intr["exception_only"]:
            continue
        for related in introspector.related(intr):
            if related.category_name == "permissions" and related["value"] != NO_PERMISSION_REQUIRED:
                yield intr["route_name"], related["value"]


def test_every_permission_a_view_declares_is_decided_by_the_map(registry):
    declared = set(_declared_permissions(registry))
    assert {route for route, _ in declared} == {None, "portal"}  # both surfaces
    assert {permission for _, permission in declared} - PERMISSION_MAP.keys() == set()


# Through the real application: a rule changed in the map changes what a request may do.


def test_the_api_asks_the_map(testapp, connected, monkeypatch):
    testapp.get(f"/v1/clinics/{connected.clinic_id}/allergies", headers=connected.headers, status=200)
    monkeypatch.setitem(PERMISSION_MAP, Permission.AllergiesRead, [])
    refused = testapp.get(f"/v1/clinics/{connected.clinic_id}/allergies", headers=connected.headers, status=403)
    assert refused.json["code"] == "scope_missing" and "allergies:read" in refused.json["detail"]


def test_a_grantable_permission_is_held_where_the_clinic_granted_it():
    key = types.SimpleNamespace(scopes=frozenset())
    for permission in Permission:
        clinic = types.SimpleNamespace(__parent__=None, scope=types.SimpleNamespace(granted=frozenset({permission})))
        alsoProvides(clinic, IClinicContext)
        below = types.SimpleNamespace(__parent__=clinic)
        assert holds(key, below, permission)
        assert [other for other in Permission if holds(key, below, other)] == [permission]
