"""What every keyed request passes before it reaches any resource: no browser, a valid key, sent properly,
from an allowed address. Runs once, when traversal leaves /v1 for a non-public child (the clinics collection:
when it is asked for a clinic, so the key and its reach of that clinic are read together)."""

from clinicrecords.access.keycache import StaleKey
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


def key_gate(policy):
    """`request.require_key(clinic_id=None)`: the gate, run once per request. `clinic_id` is the clinic
    the path names when the clinics collection runs the gate (clinicrecords.clinics.resources): the key is
    then read with its reach of that clinic in one statement."""

    def require_key(request, clinic_id=None):
        passed = getattr(request, "key_gate_passed", None)
        if passed is not None:
            return passed
        refuse_browsers(request)
        if _key_in_query(request):
            raise Problem("invalid_key", "Send the key in the Authorization header, never in the URL.")
        try:
            identity = _checked(request, policy.identify(request, clinic_id))
        except StaleKey:
            # The key came from the cache and the reach version has moved: nothing was counted yet, so the
            # statement decides as if there were no cache, in the same order.
            identity = _checked(request, policy.reidentify(request, clinic_id))
        request.key_gate_passed = identity
        return identity

    return require_key


def _checked(request, identity):
    if identity is None:
        raise Problem("invalid_key")
    if not identity.ip_allowed(request.remote_addr):
        raise Problem("ip_not_allowed")
    for check in request.registry.get(GATE_CHECKS, ()):
        check(request, identity)
    return identity


def gate_where_traversal_stopped(event):
    """A keyed resource that runs the gate only for its items (`gates_items`, the clinics collection) still
    passes it when traversal ends on it (`/v1/clinics`): no key gets another answer there than elsewhere."""
    request = event.request
    if getattr(request.context, "gates_items", False):
        request.require_key()


# The checks `add_gate_check` registers, kept in the registry in the order added.
GATE_CHECKS = "access.gate_checks"


def add_gate_check(config, check):
    """Further per-request checks on a valid key (rate limits), run in the order added."""
    config.registry.setdefault(GATE_CHECKS, []).append(check)
