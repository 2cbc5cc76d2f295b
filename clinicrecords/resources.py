"""The traversal tree: / → v1 → clinics → {clinic_id} → collection → item.

Bounded contexts hang their resources on the tree with two config directives:
`config.add_api_resource(name, factory, public=False)` for `/v1/<name>` and
`config.add_clinic_collection(name, factory)` for `/v1/clinics/{clinic_id}/<name>`. Factories receive
`(parent, name)`; the request is `parent.request`. Who may enter a child that is not public, and what a key
holds there, are the access context's (its entry and permission map).
"""

import uuid

from pyramid.location import lineage

# What the two directives fill in the registry: {name: (factory, public)} under /v1, {name: factory} under a
# clinic.
API_RESOURCES = "resources.api"
CLINIC_COLLECTIONS = "resources.clinic"
# The paths under a clinic that answer without a key, as tuples of segments below the clinic's id.
PUBLIC_CLINIC_PATHS = "resources.public_clinic"


def parse_uuid(segment):
    """A path segment as a uuid, or KeyError so that traversal answers 404 not_found."""
    try:
        return uuid.UUID(segment)
    except (ValueError, TypeError, AttributeError):
        raise KeyError(segment) from None


class Resource:
    """A node of the tree: it knows its parent, its name and the request."""

    def __init__(self, parent, name):
        self.__parent__ = parent
        self.__name__ = name
        self.request = parent.request


class Collection(Resource):
    """Records found by id through a service: `<collection>/{<item_parameter>}`.

    Declare `service` (the interface of a service whose `get(id)` returns the record, or None when it is
    absent, restricted or outside the key's reach: one 404 for all; `service_name` where it is registered under
    a name),
    `item_resource` (constructed as `item_resource(parent, name, record)`) and `item_parameter` (the path
    parameter's name in the docs). The service is looked up for this collection (`context=self`): during
    traversal `request.context` is not set yet.
    """

    service = None
    service_name = ""
    item_resource = None
    item_parameter = None

    def __getitem__(self, name):
        record = self._service().get(parse_uuid(name))
        if record is None:
            raise KeyError(name)
        return self.item_resource(self, name, record)

    def _service(self):
        return self.request.find_service(self.service, context=self, name=self.service_name)


class Branch(Resource):
    """A fixed grouping of resources: `children` maps each path segment to its resource class."""

    children = {}

    def __getitem__(self, name):
        child = self.children.get(name)
        if child is None:
            raise KeyError(name)
        return child(self, name)


class Root:
    __name__ = ""
    __parent__ = None

    def __init__(self, request):
        self.request = request

    def __getitem__(self, name):
        if name == "v1":
            return V1(self, name)
        raise KeyError(name)


class V1(Resource):
    """`/v1`: children registered by the bounded contexts (clinics, listings, ...)."""

    def __getitem__(self, name):
        entry = self.request.registry[API_RESOURCES].get(name)
        if entry is None:
            raise KeyError(name)
        factory, _ = entry
        return factory(self, name)


def needs_key(context):
    """Whether `context` lies under a child of /v1 registered without `public`: a path only a valid key may
    enter (clinicrecords.access.entry)."""
    for node in lineage(context):
        if getattr(node, "public_entry", False):
            return False
        if isinstance(node.__parent__, V1):
            return not node.request.registry[API_RESOURCES][node.__name__][1]
    return False


class ClinicChildren:
    """Mixin for the clinic resource: its collections come from the registry."""

    def __getitem__(self, name):
        factory = self.request.registry[CLINIC_COLLECTIONS].get(name)
        if factory is None:
            raise KeyError(name)
        return factory(self, name)


def add_api_resource(config, name, factory, public=False):
    """The directive `config.add_api_resource`: `/v1/<name>`. `public` resources need no key (the OpenAPI
    document); every other child of /v1 is entered with one (clinicrecords.access.entry)."""
    config.registry[API_RESOURCES][name] = (factory, public)


def add_clinic_collection(config, name, factory):
    """The directive `config.add_clinic_collection`: `/v1/clinics/{clinic_id}/<name>`."""
    config.registry[CLINIC_COLLECTIONS][name] = factory


def add_public_clinic_path(config, *segments):
    """The directive `config.add_public_clinic_path`: `/v1/clinics/{clinic_id}/<segments...>` answers without a
    key, the same for every well-formed clinic id (the clinic is not entered, nothing of it is read). Its view
    is registered with NO_PERMISSION_REQUIRED."""
    config.registry[PUBLIC_CLINIC_PATHS].add(tuple(segments))


def is_public_clinic_path(request):
    """Whether the request's path, below `/v1/clinics/{clinic_id}/`, is one `add_public_clinic_path` named."""
    # The WSGI path (bytes as latin-1), not `path_info`, which raises on a path that is not UTF-8.
    segments = tuple(segment for segment in request.environ.get("PATH_INFO", "").split("/")[4:] if segment)
    return segments in request.registry[PUBLIC_CLINIC_PATHS]


def includeme(config):
    config.registry[API_RESOURCES] = {}
    config.registry[CLINIC_COLLECTIONS] = {}
    config.registry[PUBLIC_CLINIC_PATHS] = set()
    config.add_directive("add_public_clinic_path", add_public_clinic_path)
    config.add_directive("add_api_resource", add_api_resource)
    config.add_directive("add_clinic_collection", add_clinic_collection)
    config.set_root_factory(Root)
