"""What the permission map reads of the portal's nodes: the signed-in account's place in a workspace or on a
clinic's staff, which traversal found (clinicrecords.access.predicates; published by access.interfaces)."""

from zope.interface import Attribute, Interface


class IWorkspaceMembership(Interface):
    """What the permission map reads of a portal node that holds the signed-in account's membership of a
    workspace (the portal's workspace resource): who holds it, and whether as the owner."""

    account_id = Attribute("the account traversal found the membership for (the signed-in one)")
    is_owner = Attribute("whether that account owns the workspace")


class IClinicStaffMembership(Interface):
    """What the permission map reads of a portal node that holds the signed-in account's place on a clinic's
    staff (the clinic console's clinic resource): who holds it, and whether as the clinic's admin."""

    account_id = Attribute("the account traversal found the staff membership for (the signed-in one)")
    is_admin = Attribute("whether that account is one of the clinic's admins")
    is_clinician = Attribute("whether that account is one of the clinic's clinicians (roles combine)")
