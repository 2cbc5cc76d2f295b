"""Every answer counted and timed by its route template, method and status, in a tween over the request log's
(so an answer the request log's tween rendered from an exception is counted with its status too)."""

import time

from clinicrecords.observability.metrics import HTTP_DURATION, HTTP_IN_FLIGHT, HTTP_REQUESTS, REFUSALS
from clinicrecords.observability.routes import RouteTemplates

# Any other method is one value: a label's values stay a bounded set whatever a client sends.
METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
TEMPLATES = "observability.route_templates"


def metrics_tween_factory(handler, registry):
    templates = registry[TEMPLATES] = RouteTemplates.of(registry)
    match = templates.match
    in_flight = HTTP_IN_FLIGHT

    def metrics_tween(request):
        started = time.perf_counter()
        in_flight.inc()
        status = 500
        try:
            response = handler(request)
            status = response.status_int
            return response
        finally:
            in_flight.dec()
            method = request.method if request.method in METHODS else "other"
            route = match(request.path_info)
            HTTP_REQUESTS.labels(route, method, str(status)).inc()
            HTTP_DURATION.labels(route, method).observe(time.perf_counter() - started)
            if status >= 400:
                REFUSALS.labels(request.state.problem_code or "other").inc()  # a page, not problem+json

    return metrics_tween
