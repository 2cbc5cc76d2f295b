"""The portal's traversal tree. `/` is `PortalRoot`; each area hangs its branch on it with
`config.add_portal_child(name, factory)` (the developer portal's `workspaces`, the clinic console's own)."""

from pyramid.authorization import DENY_ALL, Allow, Authenticated

# Any signed-in account; a workspace's member; a workspace's owner.
SIGNED_IN = "portal.signed_in"
MEMBER = "portal.member"
OWNER = "portal.owner"
# A clinic's staff member; its admin; its clinician (the clinic console).
CLINIC_STAFF = "portal.clinic_staff"
CLINIC_ADMIN = "portal.clinic_admin"
CLINICIAN = "portal.clinician"
PORTAL_PERMISSIONS = (SIGNED_IN, MEMBER, OWNER, CLINIC_STAFF, CLINIC_ADMIN, CLINICIAN)
# The principal of an account on a clinic's staff: such an account never opens a workspace's pages.
STAFF = "portal.staff"


class Node:
    """A node of the portal tree: `children` maps fixed segments to node classes; a node whose children areas
    register (`config.add_portal_child`, ...) names the registry entry in `children_registered_as`."""

    children = {}
    children_registered_as = None

    def __init__(self, parent, name):
        self.__parent__ = parent
        self.__name__ = name
        self.request = parent.request

    def __getitem__(self, name):
        children = self.request.registry[self.children_registered_as] if self.children_registered_as \
            else self.children
        child = children.get(name)
        if child is None:
            raise KeyError(name)
        return child(self, name)


class PortalRoot(Node):
    __name__ = ""
    __parent__ = None
    __acl__ = ((Allow, Authenticated, SIGNED_IN), DENY_ALL)
    children_registered_as = "portal.children"

    def __init__(self, request):
        self.request = request


class Static(Node):
    """`/static/portal.css`, the one stylesheet, and `/static/passkeys.js`, the one script (no CDN, nothing
    inline)."""

    public = True


def add_portal_child(config, name, factory):
    config.registry["portal.children"][name] = factory
