"""Authorization is one map (decision 0074): every permission any view of either surface declares is decided
by clinicrecords.access.permission_map, both security policies ask it, no resource carries an ACL, and the row
rules the map writes are the ones the owning contexts apply."""

import pathlib
import types
import uuid

from pyramid import testing
from pyramid.security import NO_PERMISSION_REQUIRED
from sqlalchemy import select
from zope.interface import alsoProvides

import clinicrecords
from clinicrecords.access.interfaces import Permission, PortalPermission
from clinicrecords.access.permission_map import PERMISSION_MAP, holds, sent_by, shown_to_keys
from clinicrecords.clinical.models import Allergy
from clinicrecords.clinics.interfaces import IClinicContext
from clinicrecords.patients.models import Patient
from clinicrecords.patients.services import visible, visible_patients
from clinicrecords.portal.console.resources import ClinicResource, ClinicsCollection
from clinicrecords.portal.console.staff.resources import Staff
from clinicrecords.portal.web.resources import PortalRoot
from clinicrecords.portal.developer.workspaces.resources import (InvitationPage, Members, WorkspaceResource,
                                                                 WorkspacesCollection)
from tests.portal.helpers import with_workspace


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


def test_no_resource_carries_an_acl():
    """Nothing reads an ACL (neither security policy uses Pyramid's ACLHelper), so none is written."""
    package = pathlib.Path(clinicrecords.__file__).parent
    with_acl = [str(path.relative_to(package)) for path in package.rglob("*.py") if "__acl__" in path.read_text()]
    assert with_acl == []


# The portal's roles, decided on the portal's own resource classes with plain objects for the request, the
# memberships traversal finds and the signed-in account.

ACCOUNT = uuid.uuid4()


def _caller(staff=False, account_id=ACCOUNT):
    return types.SimpleNamespace(account_id=account_id, is_staff=staff)


def _root():
    return PortalRoot(testing.DummyRequest())


def _workspace_page(owner):
    workspace = WorkspaceResource(WorkspacesCollection(_root(), "workspaces"), "w",
                                  types.SimpleNamespace(workspace=None, is_owner=owner), ACCOUNT)
    return Members(workspace, "members")


def _console_page(admin, clinician=None):
    """A console page of a staff member who is an admin, a clinician (by default: whoever is not an admin) or
    both."""
    clinician = not admin if clinician is None else clinician
    clinic = ClinicResource(ClinicsCollection(_root(), "clinics"), "c",
                            types.SimpleNamespace(clinic=None, is_admin=admin, is_clinician=clinician), ACCOUNT)
    return Staff(clinic, "staff")


def test_nobody_signed_in_holds_any_portal_role():
    for permission in PortalPermission:
        for context in (_root(), _workspace_page(owner=True), _console_page(admin=True)):
            assert not holds(None, context, permission)


def test_a_workspace_member_and_owner():
    member, owner = _workspace_page(owner=False), _workspace_page(owner=True)
    assert holds(_caller(), member, PortalPermission.Member) and not holds(_caller(), member, PortalPermission.Owner)
    assert holds(_caller(), owner, PortalPermission.Owner)
    assert holds(_caller(), member, PortalPermission.SignedIn)
    assert not holds(_caller(account_id=uuid.uuid4()), owner, PortalPermission.Member)  # another account's
    assert not holds(_caller(), _root(), PortalPermission.Member)  # outside any workspace
    assert not holds(_caller(), member, PortalPermission.ClinicStaff)


def test_a_staff_account_holds_nothing_in_the_developer_portals_own_places():
    staff = _caller(staff=True)
    assert not holds(staff, WorkspacesCollection(_root(), "workspaces"), PortalPermission.SignedIn)
    assert not holds(staff, InvitationPage(_root(), "invitations"), PortalPermission.SignedIn)
    assert not holds(staff, _workspace_page(owner=True), PortalPermission.SignedIn)
    assert holds(staff, _root(), PortalPermission.SignedIn)
    assert holds(staff, _console_page(admin=False), PortalPermission.SignedIn)
    assert holds(_caller(), WorkspacesCollection(_root(), "workspaces"), PortalPermission.SignedIn)


def test_a_clinics_staff_admin_and_clinician():
    admin, clinician = _console_page(admin=True), _console_page(admin=False)
    staff = _caller(staff=True)
    for page in (admin, clinician):
        assert holds(staff, page, PortalPermission.ClinicStaff)
    assert holds(staff, admin, PortalPermission.ClinicAdmin) and not holds(staff, admin, PortalPermission.Clinician)
    assert holds(staff, clinician, PortalPermission.Clinician)
    assert not holds(staff, clinician, PortalPermission.ClinicAdmin)
    assert not holds(_caller(staff=True, account_id=uuid.uuid4()), admin, PortalPermission.ClinicStaff)
    assert not holds(staff, admin, PortalPermission.Member)


def test_roles_combine_an_admin_who_is_also_a_clinician_holds_both():
    both, staff = _console_page(admin=True, clinician=True), _caller(staff=True)
    assert holds(staff, both, PortalPermission.ClinicAdmin) and holds(staff, both, PortalPermission.Clinician)


# Both surfaces, through the real application: a rule changed in the map changes what a request may do.


def test_the_portal_asks_the_map(app, monkeypatch):
    client, workspace_id = with_workspace(app)
    client.get(f"/portal/workspaces/{workspace_id}/members", status=200)
    monkeypatch.setitem(PERMISSION_MAP, PortalPermission.Member, [])  # no clause: nobody is a member
    assert client.get(f"/portal/workspaces/{workspace_id}/members", status=403).html.find("h1").get_text() == \
        "Not allowed"


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


# The row rules: the map writes them, the owning contexts apply them to their own tables.


def test_the_patients_context_applies_the_maps_visibility_rule():
    rule = str(shown_to_keys(Patient.restricted).compile())
    for statement in (visible_patients(), visible(select(Allergy.id), Allergy.patient_id)):
        assert rule in str(statement.compile())


def test_a_referral_is_its_senders():
    sender = types.SimpleNamespace(owner_id=uuid.uuid4())
    assert sent_by(sender, sender.owner_id)
    assert not sent_by(sender, uuid.uuid4()) and not sent_by(None, sender.owner_id)
