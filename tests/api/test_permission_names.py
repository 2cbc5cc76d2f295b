"""The platform names permissions only as the access context registers them (clinicrecords.api.permission_names)."""

from pyramid.registry import Registry

from clinicrecords.access.interfaces import ALL_PERMISSIONS, EVENTS_FEED, KEY_HOLDER, DerivedPermission
from clinicrecords.api.permission_names import grantable_permissions


def test_the_application_knows_the_grantable_permissions_access_defines(registry):
    assert grantable_permissions(registry) == ALL_PERMISSIONS
    assert not {KEY_HOLDER, EVENTS_FEED, *DerivedPermission} & grantable_permissions(registry)


def test_with_nothing_registered_no_permission_is_grantable():
    assert grantable_permissions(Registry("bare")) == frozenset()
