from zope.interface import Interface

# What the permission map reads of the portal's nodes, which they provide.
from clinicrecords.access.memberships import IClinicStaffMembership, IWorkspaceMembership
# The permission names: the vocabulary every context's views declare (`permission=Permission.X`), published
# here as access's contract (clinicrecords.access.permissions is their implementation, inside access).
from clinicrecords.access.permissions import (ALL_PERMISSIONS, BULK_EXPORT, EVENTS_FEED, KEY_HOLDER,
                                              PERMISSION_DESCRIPTIONS, PSEUDO_PERMISSIONS, TEST_HELPERS,
                                              DerivedPermission, Permission, PortalPermission, describe_permission,
                                              parse_scopes, refusal_name)


class ILiveKeyGate(Interface):
    """What a workspace still lacks before a new live key may be created. The portal's key page and the
    operator CLI's `key create --mode live` both ask it (implemented by clinicrecords.portal.developer.keys.gate)."""

    def missing(workspace_id):
        """The conditions not met (each with `code` and `text`), in order; empty when a live key may be
        created."""

    def met(workspace_id):
        """{code: True/False} for every condition, in order."""

    def checklist(workspace_id):
        """A `ChecklistItem` per condition (met or not, and since when the profile waits for review)."""

    def acting(account_id):
        """The gate for a member acting in the portal: one more condition, the member's email verified (the
        operator's `key create` asks the gate itself: four conditions)."""


class IReach(Interface):
    """The clinics a key reaches, listed, and the calling key. Provided by clinicrecords.access.reach.ReachService;
    entering a clinic is the entry's (clinicrecords.access.entry), who reaches which the permission map's."""

    def reachable(identity, query, cursors, now=None):
        """One page of the clinics the key reaches now (`Reached`: clinic, granted, connection), oldest
        connection first (GET /v1/connections)."""

    def calling_key(identity):
        """The calling key and its owner's name (`CallingKey`), for GET /v1/me."""


class ISandboxSeed(Interface):
    """Seeds a new workspace's sandbox clinic. The sandbox context provides it (it builds on access, so access
    asks for it by interface rather than importing it)."""

    def __call__(request, clinic):
        """Write every context's sandbox records, with their fixed ids, into `clinic`'s schema."""


# What other contexts name of access, re-exported so they import access only through this module and its
# services (the portal: key masks, plans, the usage service's interface).
from clinicrecords.access.keys import key_label, masked  # noqa: E402
from clinicrecords.access.models import PLANS  # noqa: E402
# The moments of a connection's life access publishes (clinicrecords.publishing).
from clinicrecords.access.published import ConnectionChanged, ConnectionRequested  # noqa: E402
from clinicrecords.access.ratelimit import RATE_LIMITER  # noqa: E402
from clinicrecords.access.usage import IUsageService  # noqa: E402

__all__ = ["ALL_PERMISSIONS", "BULK_EXPORT", "ConnectionChanged", "ConnectionRequested",
           "EVENTS_FEED", "KEY_HOLDER", "PERMISSION_DESCRIPTIONS", "PSEUDO_PERMISSIONS",
           "RATE_LIMITER", "TEST_HELPERS", "DerivedPermission", "IClinicStaffMembership", "ILiveKeyGate", "IReach",
           "ISandboxSeed", "IUsageService", "IWorkspaceMembership", "PLANS", "Permission", "PortalPermission",
           "describe_permission", "key_label", "masked", "parse_scopes", "refusal_name"]
