"""Every documented route, derived from the registrations themselves: the traversal tree that contexts build
with `config.add_api_resource` / `config.add_clinic_collection`, the item resources collections declare, and
Pyramid's view introspector. The OpenAPI document, the examples test and the contract test all read this.

A collection (`clinicrecords.resources.Collection`) declares its item resource and the item's path parameter,
and a branch (`clinicrecords.resources.Branch`) its fixed children, on the class:

    class PatientCollection(Collection):
        service = "patients"
        item_resource = PatientResource      # /v1/clinics/{clinic_id}/patients/{patient_id}
        item_parameter = "patient_id"

    class Insurance(Branch):
        children = {"payment-advices": PaymentAdviceCollection}

and an item resource may name a sandbox record that documentation examples use (`sandbox_example_id`).
"""

import re
from dataclasses import dataclass, field

from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.resources import API_RESOURCES, CLINIC_COLLECTIONS, ClinicChildren

METHODS = ("GET", "POST", "PATCH", "PUT", "DELETE")
# The documented paths' patterns with their methods, built on first use and kept in the registry.
ROUTE_PATTERNS = "api.route_patterns"
_VIEW_OPTIONS = ("openapi", "body_schema", "query_schema", "idempotency", "idempotent_replay_field", "body_limit")


@dataclass(frozen=True)
class PathParameter:
    name: str
    resource: type  # the item resource class the parameter selects

    @property
    def sandbox_example_id(self):
        return getattr(self.resource, "sandbox_example_id", None)


@dataclass(frozen=True)
class Node:
    path: str
    resource: type
    parameters: tuple = ()
    public: bool = False

    @property
    def in_clinic(self):
        return any(issubclass(p.resource, ClinicChildren) for p in self.parameters)


@dataclass(frozen=True)
class Operation:
    node: Node
    method: str
    path: str
    view_name: str
    permission: object
    callable: object
    options: dict = field(default_factory=dict)

    @property
    def doc(self):
        return self.options.get("openapi") or {}

    @property
    def public(self):
        return self.node.public or self.permission == NO_PERMISSION_REQUIRED


def walk(registry, resource, path, public=False, parameters=()):
    """`resource` (a class) at `path` and every resource class below it, with their URL templates, in a stable
    order: the fixed children a class declares (`children`) or the registry holds for it (the clinic's
    collections; `children_registered_as`), and the item resource(s) a collection declares (`item_resource`, a
    class or a tuple of the classes the record's state decides between, at `{item_parameter}`)."""
    found = []

    def visit(resource, path, parameters, public):
        found.append(Node(path, resource, tuple(parameters), public))
        if isinstance(resource, type) and issubclass(resource, ClinicChildren):
            for name, factory in sorted(registry[CLINIC_COLLECTIONS].items()):
                visit(factory, f"{path}/{name}", parameters, public)
        registered = getattr(resource, "children_registered_as", None)
        children = {**getattr(resource, "children", {}), **(registry.get(registered, {}) if registered else {})}
        for name, child in sorted(children.items()):
            visit(child, f"{path}/{name}", parameters, public or getattr(child, "public", False))
        items = getattr(resource, "item_resource", None)
        for item in items if isinstance(items, tuple) else (items,) if items is not None else ():
            parameter = resource.item_parameter
            visit(item, f"{path}/{{{parameter}}}", [*parameters, PathParameter(parameter, item)], public)

    visit(resource, path, list(parameters), public)
    return found


def nodes(registry):
    """Every resource class reachable under /v1, with its URL template, in a stable order."""
    found = []
    for name, (factory, public) in sorted(registry[API_RESOURCES].items()):
        found += walk(registry, factory, f"/v1/{name}", public)
    return found


def registered_views(registry, route_name=None):
    """(introspectable, permission) of every ordinary view registered for a resource class of the API, or of
    the surface served by the route `route_name` (the portal's pages, route `portal`)."""
    introspector = registry.introspector
    for entry in introspector.get_category("views"):
        intr = entry["introspectable"]
        context = intr["context"]
        if intr["exception_only"] or not isinstance(context, type) or issubclass(context, BaseException):
            continue
        if intr["route_name"] != route_name:
            continue
        permissions = [related["value"] for related in entry["related"] if related.category_name == "permissions"]
        yield intr, (permissions[0] if permissions else None)


def _methods(intr):
    declared = intr["request_methods"]
    if declared is None:
        return ()
    return (declared,) if isinstance(declared, str) else tuple(declared)


def operations(registry, tree=None, route_name=None, every_view=False):
    """Every (route, method) answered by a view, ordered by path then method: of the API, or of the `tree`
    (`walk`) served by the route `route_name`. The most specific context wins, as in Pyramid's own view
    lookup; `every_view` keeps each view of that context a predicate chooses between (the portal's home:
    the clinic console's for a staff account)."""
    views = list(registered_views(registry, route_name))
    result = []
    for node in nodes(registry) if tree is None else tree:
        if not isinstance(node.resource, type):
            continue
        chosen = {}
        for intr, permission in views:
            context = intr["context"]
            if not issubclass(node.resource, context):
                continue
            rank = node.resource.__mro__.index(context)
            for method in _methods(intr):
                key = (intr["name"], method)
                if key not in chosen or rank < chosen[key][0]:
                    chosen[key] = (rank, [(intr, permission)])
                elif every_view and rank == chosen[key][0]:
                    chosen[key][1].append((intr, permission))
        for (view_name, method), (_, found) in chosen.items():
            path = f"{node.path}/{view_name}" if view_name else node.path
            for intr, permission in found:
                options = {name: intr.get(name) for name in _VIEW_OPTIONS if intr.get(name) is not None}
                result.append(Operation(node, method, path, view_name, permission, intr["callable"], options))
    return sorted(result, key=lambda op: (op.path, METHODS.index(op.method) if op.method in METHODS else 99))


def template_pattern(path):
    """A regular expression matching the URLs of a path template (any segment for each parameter)."""
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "/?$")


def _route_patterns(registry):
    """[(pattern, methods)] of every documented path, those with fewer parameters first: a named view
    (`/patients/search`) wins over an item template (`/patients/{patient_id}`)."""
    if ROUTE_PATTERNS not in registry:
        by_path = {}
        for operation in operations(registry):
            by_path.setdefault(operation.path, set()).add(operation.method)
        registry[ROUTE_PATTERNS] = [(template_pattern(path), frozenset(methods))
                                          for path, methods in sorted(by_path.items(),
                                                                      key=lambda item: item[0].count("{"))]
    return registry[ROUTE_PATTERNS]


def route_methods(registry, path):
    """The methods of the documented route whose template `path` fits, or an empty set. The URL's shape
    alone decides, which the document publishes: no record and no caller."""
    for pattern, methods in _route_patterns(registry):
        if pattern.match(path):
            return methods
    return frozenset()
