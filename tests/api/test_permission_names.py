"""The platform names permissions only as the access context registers them (clinicrecords.api.permission_names)."""

from pyramid.registry import Registry

from clinicrecords.access.permissions import ALL_PERMISSIONS, EVENTS_FEED, KEY_HOLDER, DerivedPermission
from clinicrecords.api.permission_names import grantable_permissions, refusal_name


def test_the_application_knows_the_grantable_permissions_access_defines(registry):
    assert grantable_permissions(registry) == ALL_PERMISSIONS
    assert not {KEY_HOLDER, EVENTS_FEED, *DerivedPermission} & grantable_permissions(registry)


def test_a_refusal_names_a_derived_permission_by_what_grants_it(registry):
    assert refusal_name(registry, "allergies:write") == "allergies:write"
    assert refusal_name(registry, DerivedPermission.SubmissionWithdraw) == (
        "the write permission of the submission's kind (e.g. allergies:write)")


def test_with_nothing_registered_no_permission_is_grantable_and_refusals_name_it_as_is():
    bare = Registry("bare")
    assert grantable_permissions(bare) == frozenset()
    assert refusal_name(bare, DerivedPermission.SubmissionsOfKind) == DerivedPermission.SubmissionsOfKind
