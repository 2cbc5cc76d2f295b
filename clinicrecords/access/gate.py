"""What every keyed request passes before it reaches any resource: a valid key, sent properly, from an
allowed address. Runs once, when traversal leaves /v1 for a non-public child."""

from clinicrecords.api.problems import Problem

_KEY_PARAMETERS = frozenset({"api_key", "apikey", "key", "access_token", "token"})


def _key_in_query(request):
    return any(name.lower() in _KEY_PARAMETERS or value.startswith("ehr_")
               for name, value in request.GET.items())


def require_key(request):
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
