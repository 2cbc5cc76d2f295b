"""Every route the application answers, one row per method, from the registrations themselves: the API's
traversal tree under /v1 (`routes.nodes`), the root's own pages (/healthz), and each surface served by a
traversal route (the portal: its route's root factory, walked the same way). `clinicrecords-admin CONFIG
routes` prints it and docs/routes.md is the same table (tests/api/test_route_table.py keeps it current).

A row names the route's `resource` (the traversal context's class), its `view` (the callable), its
`permission` (null only where the view needs none: public pages and documents) and its `service`: the
interface whose service traversal asks for the route's own record (a collection's `service`, and for an
item the collection's that found it; `[name]` for a service registered under a name), null where traversal
looks nothing up through a service (fixed pages, documents, the clinic itself, which access enters).
"""

from dataclasses import asdict, dataclass

from pyramid.interfaces import IRootFactory
from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.api.routes import METHODS, Node, nodes, operations, walk

TRAVERSE = "*traverse"


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    resource: str
    view: str
    permission: str | None
    service: str | None
    public: bool

    def row(self):
        """The route as the command prints it."""
        return {name: value for name, value in asdict(self).items() if name != "public"}


def dotted(value):
    return f"{value.__module__}.{value.__qualname__}"


def _service(resource):
    interface = getattr(resource, "service", None)
    if interface is None:
        return None
    name = getattr(resource, "service_name", "")
    return interface.__identifier__ + (f"[{name}]" if name else "")


def _services(tree):
    """{path: service} of every node: an item's is its collection's, any other node's its own."""
    by_path = {node.path: node for node in tree}
    found = {}
    for node in tree:
        parent_path, _, segment = node.path.rpartition("/")
        parent = by_path.get(parent_path)
        is_item = segment.startswith("{") and parent is not None
        found[node.path] = _service(parent.resource) if is_item else _service(node.resource)
    return found


def _routes(operations_of_tree, services, root=""):
    """The rows of a tree's operations; the page of its root (at `root`) is `root/`."""
    for op in operations_of_tree:
        permission = None if op.permission == NO_PERMISSION_REQUIRED else str(op.permission)
        public = op.public or getattr(op.node.resource, "public", False)
        path = op.path + "/" if op.path == root else op.path
        yield Route(op.method, path, dotted(op.node.resource), dotted(op.callable), permission,
                    services.get(op.node.path), public)


def _traversal_routes(registry):
    """(prefix, root factory, route name) of every route that hands its path to traversal (the portal's)."""
    for entry in registry.introspector.get_category("routes"):
        route = entry["introspectable"]
        pattern = route["pattern"]
        if pattern.endswith(TRAVERSE) and route["factory"] is not None:
            yield pattern[:-len(TRAVERSE)].rstrip("/"), route["factory"], route["name"]


def route_table(registry):
    """Every `Route`, ordered by path then method."""
    api_tree = nodes(registry)
    found = list(_routes(operations(registry, api_tree, every_view=True), _services(api_tree)))
    root = registry.queryUtility(IRootFactory)
    if root is not None:
        # The root's own pages (/healthz) are outside /v1: no key is asked there.
        root_tree = [Node("", root, public=True)]
        found += _routes(operations(registry, root_tree, every_view=True), {})
    for prefix, factory, route_name in _traversal_routes(registry):
        tree = walk(registry, factory, prefix)
        found += _routes(operations(registry, tree, route_name, every_view=True), _services(tree), root=prefix)
    return sorted(found, key=lambda route: (route.path, METHODS.index(route.method) if route.method in METHODS
                                            else len(METHODS), route.method, route.view))


DOCUMENT_PATH = "docs/routes.md"
HEADER = """# Routes

Every route the application answers, one row per method: what `clinicrecords-admin CONFIG routes` prints,
generated from the registrations by `scripts/routes` (`tests/api/test_route_table.py` fails while this file is
stale). **Permission** is the view's (none only on public pages and documents: no key or session is asked
there); **Service** is the interface whose service traversal asks for the route's own record (a collection's
`service`, an item's collection's; `[name]` for a named registration), none where traversal looks nothing up
through a service ([decision 0078](decisions/0078-route-table-service.md)). The portal's pages are shown
under `/portal/`, its prefix without `portal.host`.

| Method | Path | Permission | Service | View | Resource |
| - | - | - | - | - | - |
"""


def _code(name):
    return f"`{name}`" if name else "—"


def markdown(registry):
    """docs/routes.md: the table as markdown."""
    rows = [f"| {route.method} | `{route.path}` | {_code(route.permission) if route.permission else '— (public)'} "
            f"| {_code(route.service)} | {_code(route.view)} | {_code(route.resource)} |"
            for route in route_table(registry)]
    return HEADER + "\n".join(rows) + "\n"
