"""Services by interface, built per request on first use: the directives and request method of
pyramid_services (`config.register_service_factory`, `config.register_service`, `request.find_service`) without
a wired container per request.

pyramid_services builds a wired container for every request, registers the request in it, and keeps each
context's instances in a zope adapter registry of their own, with a weakref finalizer per context: 22% of GET
one's CPU under the profiler (docs/performance.md). Every factory here is registered for one interface and
name, either for any context (`context=Interface`: one instance per context object, the factory given that
context) or for none (one instance per request, the factory given `None`), which a dictionary per request
answers exactly.
"""

from zope.interface import Interface

_marker = object()
_FACTORIES = "clinicrecords.service_factories"


class _Singleton:
    def __init__(self, service):
        self.service = service

    def __call__(self, context, request):
        return self.service


def includeme(config):
    config.registry[_FACTORIES] = {}
    config.add_directive("register_service_factory", register_service_factory)
    config.add_directive("register_service", register_service)
    config.add_request_method(find_service)


def register_service_factory(config, factory, iface=Interface, context=None, name=""):
    """`factory(context, request)` builds the service `iface` (named `name`). `context`: None (one instance per
    request, built with no context) or `Interface` (one per context object, built with it)."""
    factory, iface, context = config.maybe_dotted(factory), config.maybe_dotted(iface), config.maybe_dotted(context)
    if context not in (None, Interface):
        raise ValueError("services are registered for any context (Interface) or none (None)")

    def register():
        config.registry[_FACTORIES][iface, name] = (factory, context is not None)

    config.action(("service factories", (iface, context, name)), register)


def register_service(config, service, iface=Interface, context=None, name=""):
    """One instance for every request."""
    config.register_service_factory(_Singleton(config.maybe_dotted(service)), iface, context=context, name=name)


def registered_services(registry):
    """(interface, name, per context) of every service registered, in the order of registration."""
    return [(iface, name, per_context) for (iface, name), (_, per_context) in registry[_FACTORIES].items()]


def find_service(request, iface=Interface, context=_marker, name=""):
    """The request's instance of `iface`, built on first use. `context` defaults to `request.context`."""
    try:
        factory, wants_context = request.registry[_FACTORIES][iface, name]
    except KeyError:
        raise LookupError(f"no service registered for {iface!r} named {name!r}") from None
    if not wants_context:
        context = None
    elif context is _marker:
        context = getattr(request, "context", None)
    built = request.state.services
    key = (iface, name, id(context))
    found = built.get(key)
    if found is None:
        # The context is kept beside its service, so its id cannot be reused by another object this request.
        found = built[key] = (context, factory(context, request))
    return found[1]
