"""The permission map decides every permission in one place (clinicrecords.access.permission_map), from the
calling key and the context's clinic scope: checked here with plain objects in place of the scope and the key,
over the application's real view registrations."""

import types
import uuid

import pytest
from zope.interface import implementer

from clinicrecords.access.permission_map import holds, look_refusal, refusal
from clinicrecords.access.predicates import may_use_helpers
from clinicrecords.access.interfaces import EVENTS_FEED, KEY_HOLDER, TEST_HELPERS, DerivedPermission, Permission
from clinicrecords.clinics.interfaces import IClinicContext
from clinicrecords.patients.resources import PatientCollection, PatientResource


def _identity(scopes=(), **kwargs):
    values = {"scopes": frozenset(scopes), "is_test": False, "clinic_id": None, "workspace_id": uuid.uuid4(),
              "sandbox_clinic_id": None}
    return types.SimpleNamespace(**{**values, **kwargs})


@implementer(IClinicContext)
class _Clinic:
    """The clinic resource's part the map reads: its scope, here a plain object."""

    __parent__ = None
    __name__ = "clinic"

    def __init__(self, granted, clinic=None):
        self.request = types.SimpleNamespace()
        self.scope = types.SimpleNamespace(granted=frozenset(granted), identity=None, db=None,
                                           clinic=clinic or types.SimpleNamespace(id=uuid.uuid4()))


def _patient(granted):
    collection = PatientCollection(_Clinic(granted), "patients")
    return collection, PatientResource(collection, str(uuid.uuid4()), patient=None)


def test_a_grantable_permission_is_held_when_the_clinic_granted_it_whatever_the_key_scopes():
    key = _identity(scopes={Permission.PatientsRead, Permission.AllergiesRead})
    _, patient = _patient(granted={Permission.AllergiesRead})
    assert holds(key, patient, Permission.AllergiesRead)
    assert not holds(key, patient, Permission.PatientsRead)


def test_outside_a_clinic_the_key_scopes_are_what_it_holds():
    outside = types.SimpleNamespace(__parent__=None)
    key = _identity(scopes={Permission.ListingProfileRead})
    assert holds(key, outside, Permission.ListingProfileRead)
    assert not holds(key, outside, Permission.ListingAvailabilityRead)


def test_pseudo_permissions_hold_for_any_key_that_got_there():
    _, patient = _patient(granted=())
    for permission in (KEY_HOLDER, EVENTS_FEED):
        assert holds(_identity(), patient, permission)


def test_the_collection_guard_names_the_methods_permission_before_any_record(registry):
    collection, patient = _patient(granted={Permission.AllergiesRead})
    key = _identity()
    assert refusal(registry, key, patient, "GET", Permission.PatientsRead) == Permission.PatientsRead
    assert refusal(registry, key, patient, "PATCH", Permission.PatientsWrite) == Permission.PatientsWrite
    # No view answers (an absent record, an unknown method): the guard alone decides, the same way.
    assert refusal(registry, key, patient, "GET") == Permission.PatientsRead
    assert refusal(registry, key, collection, "DELETE") == Permission.PatientsWrite


def test_one_of_the_collections_permissions_passes_the_guard_and_the_view_decides(registry):
    _, patient = _patient(granted={Permission.PatientsWrite})
    key = _identity()
    assert refusal(registry, key, patient, "GET") is None
    assert refusal(registry, key, patient, "GET", Permission.PatientsRead) == Permission.PatientsRead
    assert refusal(registry, key, patient, "PATCH", Permission.PatientsWrite) is None


def test_a_derived_permission_is_held_with_what_the_nearest_resource_says_confers_it():
    clinic = _Clinic(granted={Permission.AllergiesRead})
    kind = types.SimpleNamespace(__parent__=clinic, confers={
        DerivedPermission.SubmissionsOfKind: (Permission.AllergiesRead, Permission.AllergiesWrite),
        DerivedPermission.SubmissionWithdraw: (Permission.AllergiesWrite,)})
    below = types.SimpleNamespace(__parent__=kind)
    assert holds(_identity(), below, DerivedPermission.SubmissionsOfKind)
    assert not holds(_identity(), below, DerivedPermission.SubmissionWithdraw)
    assert not holds(_identity(), clinic, DerivedPermission.SubmissionsOfKind)  # nothing there confers it


def test_test_helpers_only_for_a_test_key_on_its_own_sandbox():
    workspace_id, sandbox_id = uuid.uuid4(), uuid.uuid4()
    sandbox = types.SimpleNamespace(id=sandbox_id, sandbox_of_workspace_id=workspace_id)
    own = _identity(is_test=True, workspace_id=workspace_id, sandbox_clinic_id=sandbox_id)
    assert holds(own, _Clinic((), clinic=sandbox), TEST_HELPERS)
    other_sandbox = types.SimpleNamespace(id=uuid.uuid4(), sandbox_of_workspace_id=uuid.uuid4())
    assert not holds(own, _Clinic((), clinic=other_sandbox), TEST_HELPERS)
    live = _identity(is_test=False, workspace_id=workspace_id, sandbox_clinic_id=sandbox_id)
    assert not holds(live, _Clinic((), clinic=sandbox), TEST_HELPERS)
    assert not may_use_helpers(None, sandbox)


def test_the_look_guard_hides_nothing_outside_a_clinic_and_reads_no_key(registry):
    request = types.SimpleNamespace(registry=registry, method="GET")
    assert look_refusal(request, types.SimpleNamespace(__parent__=None)) is None


@pytest.mark.parametrize("granted, expected", [({Permission.AllergiesRead}, "patients:read"),
                                               ({Permission.PatientsWrite}, None)])
def test_the_look_guard_inside_a_clinic(registry, granted, expected):
    collection, _ = _patient(granted)
    collection.__parent__.scope.identity = _identity()
    request = types.SimpleNamespace(registry=registry, method="GET")
    assert look_refusal(request, collection) == expected
