from zope.interface import Interface

# What the permission map reads of the portal's nodes, which they provide.
from clinicrecords.access.memberships import IClinicStaffMembership, IWorkspaceMembership
# The permission names: the vocabulary every context's views declare (`permission=Permission.X`), published
# here as access's contract (clinicrecords.access.permissions is their implementation, inside access).
from clinicrecords.access.permissions import (
    ALL_PERMISSIONS,
    EVENTS_FEED,
    KEY_HOLDER,
    PERMISSION_DESCRIPTIONS,
    PSEUDO_PERMISSIONS,
    TEST_HELPERS,
    DerivedPermission,
    Permission,
    PortalPermission,
    describe_permission,
    parse_scopes,
    refusal_name,
)


class ILiveKeyGate(Interface):
    """What a workspace still lacks before a new live key may be created: `missing(workspace_id)` → a list of
    conditions (each with `code` and `text`), empty when every condition is met. The portal's key page and
    the operator CLI's `key create --mode live` both ask it (clinicrecords.portal.keys.gate)."""





class IReach(Interface):
    """The clinics a key reaches, listed, and the calling key. Provided by clinicrecords.access.reach.ReachService;
    entering a clinic is the entry's (clinicrecords.access.entry), who reaches which the permission map's."""

    def reachable(identity, query, cursors, now=None):
        """One page of the clinics the key reaches now (`Reached`: clinic, granted, connection), oldest
        connection first (GET /v1/connections)."""

    def calling_key(identity):
        """The calling key and its owner's name (`CallingKey`), for GET /v1/me."""


class ISandboxSeed(Interface):
    """Seeds a new workspace's sandbox clinic: `seed(request, clinic)`. The sandbox context provides it (it
    builds on access, so access asks for it by interface rather than importing it)."""


# What other contexts name of access, re-exported so they import access only through this module and its
# services (the portal: key masks, plans, the usage service's interface).
from clinicrecords.access.keys import key_label, masked  # noqa: E402
from clinicrecords.access.models import PLANS  # noqa: E402
from clinicrecords.access.usage import IUsageService  # noqa: E402

__all__ = ["ALL_PERMISSIONS", "EVENTS_FEED", "KEY_HOLDER", "PERMISSION_DESCRIPTIONS", "PSEUDO_PERMISSIONS",
           "TEST_HELPERS", "DerivedPermission", "IClinicStaffMembership", "ILiveKeyGate", "IReach", "ISandboxSeed",
           "IUsageService", "IWorkspaceMembership", "PLANS", "Permission", "PortalPermission", "describe_permission",
           "key_label", "masked", "parse_scopes", "refusal_name"]
