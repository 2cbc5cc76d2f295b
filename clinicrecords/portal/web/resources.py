"""The portal's traversal tree. `/` is `PortalRoot`; each area hangs its branch on it with
`config.add_portal_child(name, factory)` (the developer portal's `workspaces`, the clinic console's own)."""

from pyramid.authorization import DENY_ALL, Allow, Authenticated

# Any signed-in account; a workspace's member; a workspace's owner.
SIGNED_IN = "portal.signed_in"
MEMBER = "portal.member"
OWNER = "portal.owner"
PORTAL_PERMISSIONS = (SIGNED_IN, MEMBER, OWNER)


class Node:
    """A node of the portal tree: `children` maps fixed segments to node classes."""

    children = {}

    def __init__(self, parent, name):
        self.__parent__ = parent
        self.__name__ = name
        self.request = parent.request

    def __getitem__(self, name):
        child = self.children.get(name)
        if child is None:
            raise KeyError(name)
        return child(self, name)


class PortalRoot(Node):
    __name__ = ""
    __parent__ = None
    __acl__ = ((Allow, Authenticated, SIGNED_IN), DENY_ALL)

    def __init__(self, request):
        self.request = request

    def __getitem__(self, name):
        child = self.request.registry["portal.children"].get(name)
        if child is None:
            raise KeyError(name)
        return child(self, name)


class Static(Node):
    """`/static/portal.css`: the one stylesheet (no CDN, nothing inline)."""

    public = True


def add_portal_child(config, name, factory):
    config.registry["portal.children"][name] = factory
