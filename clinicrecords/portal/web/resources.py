"""The portal's traversal tree. `/` is `PortalRoot`; each area hangs its branch on it with
`add_portal_child(config, name, factory)` (the developer portal's `workspaces`, the clinic console's own)."""

from clinicrecords.access.interfaces import PortalPermission
from clinicrecords.portal.web.headers import add_portal_headers

# The roles the portal's pages declare as their permission; who holds each is the permission map's
# (clinicrecords.access.permission_map). Any signed-in account; a workspace's member; a workspace's owner.
SIGNED_IN = PortalPermission.SignedIn
MEMBER = PortalPermission.Member
OWNER = PortalPermission.Owner
# A clinic's staff member; its admin; its clinician (the clinic console).
CLINIC_STAFF = PortalPermission.ClinicStaff
CLINIC_ADMIN = PortalPermission.ClinicAdmin
CLINICIAN = PortalPermission.Clinician
PORTAL_PERMISSIONS = tuple(PortalPermission)
# What the staff area's finder answers for an account on a clinic's staff: such an account never opens a
# workspace's pages (the map's `developers_only` places).
STAFF = "portal.staff"


# {segment: node class} of the portal's root, as the areas registered them (`add_portal_child`).
PORTAL_CHILDREN = "portal.children"


class Node:
    """A node of the portal tree: `children` maps fixed segments to node classes; a node whose children areas
    register (`add_portal_child`, ...) names the registry entry in `children_registered_as`. A node whose
    segments name records declares, as the API's collections do, the `service` interface that finds them, the
    `item_resource` it answers with (a tuple where the record's state decides between several) and the
    `item_parameter` (the route table, `clinicrecords-admin CONFIG routes`, reads them)."""

    children = {}
    children_registered_as = None
    service = None
    item_resource = None
    item_parameter = None

    def __init__(self, parent, name):
        self.__parent__ = parent
        self.__name__ = name
        self.request = parent.request

    def __getitem__(self, name):
        children = self.request.registry.get(self.children_registered_as, {}) if self.children_registered_as \
            else self.children
        child = children.get(name)
        if child is None:
            raise KeyError(name)
        return child(self, name)


class PortalRoot(Node):
    __name__ = ""
    __parent__ = None
    children_registered_as = PORTAL_CHILDREN

    def __init__(self, request):
        self.request = request
        # The root of every request on the portal's one route: its answer, a page or an error page, gets the
        # portal's headers.
        request.add_response_callback(add_portal_headers)


class Static(Node):
    """`/static/portal.css`, the one stylesheet, and the two scripts, `/static/passkeys.js` and `/static/copy.js`
    (no CDN, nothing inline)."""

    public = True


def add_portal_child(config, name, factory):
    """`/<name>` of the portal is `factory(parent, name)`."""
    config.registry.setdefault(PORTAL_CHILDREN, {})[name] = factory
