"""What every keyed request passes before it reaches any resource: no browser, a valid key, sent properly,
from an allowed address. Runs once, when traversal leaves /v1 for a non-public child."""

from clinicrecords.api.problems import Problem

_KEY_PARAMETERS = frozenset({"api_key", "apikey", "key", "access_token", "token"})


def _key_in_query(request):
    return any(name.lower() in _KEY_PARAMETERS or value.startswith("ehr_")
               for name, value in request.GET.items())


def refuse_browsers(request):
    """The API is server-to-server (spec, Authentication 3): a browser announces itself with `Origin` on
    every cross-origin request and preflight. Refused before the key is even looked at, and no CORS header
    is ever sent, so a browser never hands the answer to a page."""
    if "Origin" in request.headers:
        raise Problem("browser_not_allowed", "This API is called from servers only, never from a browser.")


def require_key(request):
    refuse_browsers(request)
    if _key_in_query(request):
        raise Problem("invalid_key", "Send the key in the Authorization header, never in the URL.")
    identity = request.identity
    if identity is None:
        raise Problem("invalid_key")
    if not identity.ip_allowed(request.client_addr):
        raise Problem("ip_not_allowed")
    for check in request.registry.get("access.gate_checks", ()):
        check(request, identity)
    return identity


def add_gate_check(config, check):
    """Further per-request checks on a valid key (rate limits), run in the order added."""
    config.registry.setdefault("access.gate_checks", []).append(check)


def collection_permissions(registry, collection_class):
    """The permissions the views on a collection declare, read once from Pyramid's own registrations."""
    cache = registry.setdefault("access.collection_permissions", {})
    if collection_class not in cache:
        introspector = registry.introspector
        by_method = {}
        for view in introspector.get_category("views"):
            intr = view["introspectable"]
            context = intr["context"]
            if not (isinstance(context, type) and issubclass(collection_class, context)) or intr["exception_only"]:
                continue
            methods = intr["request_methods"] or ("GET",)
            for related in introspector.related(intr):
                if related.category_name == "permissions":
                    for method in (methods,) if isinstance(methods, str) else methods:
                        by_method.setdefault(method, set()).add(related["value"])
        cache[collection_class] = by_method
    return cache[collection_class]


def require_some_permission_on(request, collection):
    """Entering a clinic's collection needs at least one of the permissions its views declare.

    Without this, a key lacking the collection's permissions could tell an existing record (403
    scope_missing from its view) from an absent one (404 from traversal). `detail` names the permission
    for this method: the collection's read permission for GET, its write permission otherwise.
    """
    by_method = collection_permissions(request.registry, type(collection))
    every = set().union(*by_method.values()) if by_method else set()
    if not every or any(request.has_permission(p, collection) for p in every):
        return
    reading = request.method in ("GET", "HEAD")
    wanted = by_method.get("GET", set()) if reading else set().union(
        *(perms for method, perms in by_method.items() if method != "GET"))
    missing = sorted(wanted or every)[0]
    raise Problem("scope_missing", f"This key lacks the permission {missing}.")
