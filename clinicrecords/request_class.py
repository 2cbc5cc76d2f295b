"""The request's class, with every context's request methods and properties on it.

Each context adds what it puts on the request with Pyramid's `config.add_request_method` (`request.db`,
`request.request_id`, the portal's `request.csrf_token`...). Pyramid applies those to every request as it is
made: it binds each method, then makes a new class holding the properties and gives the request that class. A
class made per request costs more than most of what a cached GET does (about 25 µs here), its attribute
lookups start cold, and it is freed only by the cycle collector. Here they are folded once, when the
configuration is committed, into one subclass of the request factory, which becomes the factory; Pyramid is
left with nothing to apply per request.
"""

from pyramid.interfaces import IRequestExtensions, IRequestFactory
from pyramid.request import Request

# After every add_request_method and set_request_factory (both are actions of the default order, 0).
AFTER_EVERY_EXTENSION = 20


def fold_request_extensions(registry):
    """The request factory registered for `registry`: a subclass of the one set, holding every request method
    and property added. Pyramid's per-request extensions are left empty."""
    extensions = registry.queryUtility(IRequestExtensions)
    base = request_factory(registry)
    if extensions is None or not (extensions.methods or extensions.descriptors):
        return base
    attributes = {**extensions.methods, **extensions.descriptors, "__module__": base.__module__,
                  "__doc__": base.__doc__}
    folded = type(base.__name__, (base,), attributes)
    registry.registerUtility(folded, IRequestFactory)
    extensions.methods.clear()
    extensions.descriptors.clear()
    return folded


def request_factory(registry):
    """The class requests of this application are made of (what tests and scripts build a request with)."""
    return registry.queryUtility(IRequestFactory, default=Request)


def includeme(config):
    config.action(None, lambda: fold_request_extensions(config.registry), order=AFTER_EVERY_EXTENSION)
