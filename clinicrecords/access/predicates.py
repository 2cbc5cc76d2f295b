"""The building blocks of the permission map (clinicrecords.access.permission_map), as hypothesis/h's
`security/predicates`: each is a function of the caller and the resource asked (the context), true when the
caller is who the rule names.

The caller is the API's `KeyIdentity` (a valid key: the security policy asks nothing of a request without one) or
the portal's `SignedIn` (clinicrecords.portal.web.security; None before sign-in). What a predicate reads of the
context, the resources provide: the clinic scope (`clinics.interfaces.clinic_scope`), a resource's `confers`,
and on the portal's nodes the signed-in account's membership (`IWorkspaceMembership`, `IClinicStaffMembership`)
and `developers_only`.
"""

from pyramid.location import lineage
from pyramid.traversal import find_interface

from clinicrecords.access.memberships import IClinicStaffMembership, IWorkspaceMembership
from clinicrecords.clinics.interfaces import clinic_scope

# The API: a key


def granted_here(identity, context):
    """The grantable permissions the key holds where the context lies: what the clinic granted it (the clinic
    scope's `granted`), or outside a clinic the key's own scopes."""
    scope = clinic_scope(context)
    return scope.granted if scope is not None else identity.scopes


def granted(permission):
    """The clinic granted `permission` to the key (outside a clinic: the key's scopes name it)."""

    def holds(identity, context):
        return permission in granted_here(identity, context)

    holds.__name__ = holds.__qualname__ = f"granted({permission})"
    return holds


def any_key(identity, context):
    """Any valid key that got there (the entry let it in, and into the clinic when there is one)."""
    return True


def may_use_helpers(identity, clinic):
    """A workspace's test key on that workspace's own sandbox clinic; never a live or clinic-owned key."""
    return (identity is not None and identity.is_test and identity.clinic_id is None
            and clinic is not None and clinic.sandbox_of_workspace_id is not None
            and clinic.id == identity.sandbox_clinic_id
            and clinic.sandbox_of_workspace_id == identity.workspace_id)


def test_key_on_its_own_sandbox(identity, context):
    scope = clinic_scope(context)
    return scope is not None and may_use_helpers(identity, scope.clinic)


def conferred(derived):
    """Held with any of the grantable permissions the nearest resource declaring `derived` in its `confers`
    ({derived permission: granting permissions}) names; where none declares it, nobody holds it."""

    def holds(identity, context):
        for node in lineage(context):
            confers = getattr(node, "confers", None)
            if confers and derived in confers:
                return not granted_here(identity, context).isdisjoint(confers[derived])
        return False

    holds.__name__ = holds.__qualname__ = f"conferred({derived})"
    return holds


# The portal: a signed-in account


def signed_in(member, context):
    return member is not None


def not_staff_in_developer_places(member, context):
    """An account on a clinic's staff works in the clinic console only: it holds nothing on the developer
    portal's own pages (the nodes that say `developers_only`: workspaces, workspace invitations)."""
    return not (any(getattr(node, "developers_only", False) for node in lineage(context)) and member.is_staff)


def _membership(member, context, interface):
    """The signed-in account's place the page lies in (a workspace membership, a place on a clinic's staff:
    `interface`), as traversal found it; None when the page lies in none or it is not this account's."""
    held = find_interface(context, interface)
    return held if held is not None and held.account_id == member.account_id else None


def workspace_member(member, context):
    """The page lies in a workspace the account is a member of (traversal finds no other)."""
    return _membership(member, context, IWorkspaceMembership) is not None


def workspace_owner(member, context):
    held = _membership(member, context, IWorkspaceMembership)
    return held is not None and held.is_owner


def on_clinic_staff(member, context):
    """The page lies in a clinic's console whose staff the account is on (traversal finds no other)."""
    return _membership(member, context, IClinicStaffMembership) is not None


def clinic_admin(member, context):
    held = _membership(member, context, IClinicStaffMembership)
    return held is not None and held.is_admin


def clinician(member, context):
    """A clinician of the clinic's staff (the review queue is the clinicians'; an admin who is also one opens
    it)."""
    held = _membership(member, context, IClinicStaffMembership)
    return held is not None and held.is_clinician
