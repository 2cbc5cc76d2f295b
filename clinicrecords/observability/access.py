"""Who GET /metrics answers: an address in `metrics.allow`, or a request bearing `metrics.token`."""

import hmac
import ipaddress


def may_scrape(request, metrics):
    """`metrics`: the typed `MetricsSettings`."""
    if metrics.token:
        sent = request.headers.get("Authorization", "")
        if hmac.compare_digest(sent.encode(), f"Bearer {metrics.token}".encode()):
            return True
    if not metrics.allow:
        return False
    try:
        address = ipaddress.ip_address(request.remote_addr or "")
    except ValueError:
        return False
    return any(address in network for network in metrics.allow)
