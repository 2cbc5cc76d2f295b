"""Every answer counted and timed by its route template, method and status (tallied in memory: answers.py), in
the outermost tween (over the transaction's, so its commit and the tasks queued at commit are inside; every
exception below has been rendered as an answer by then); its span when tracing is on; its request id for every
line logged meanwhile, and its route template for the request log's line."""

import time

from clinicrecords.api.request_log import ROUTE_TEMPLATE
from clinicrecords.observability.answers import ANSWERS
from clinicrecords.observability.every_second import READINGS
from clinicrecords.observability.logs import REQUEST_ID
from clinicrecords.observability.routes import RouteTemplates
from clinicrecords.observability.tracing import request_span

# Any other method is one value: a label's values stay a bounded set whatever a client sends.
METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
TEMPLATES = "observability.route_templates"


def metrics_tween_factory(handler, registry):
    templates = registry[TEMPLATES] = RouteTemplates.of(registry)
    match = templates.match
    started, answered = ANSWERS.started, ANSWERS.answered
    READINGS.add(ANSWERS.read)

    def answer(request, route, method):
        began = time.perf_counter()
        started(request)
        status = 500
        logged_as = REQUEST_ID.set(request.request_id)  # every line logged meanwhile names the request
        try:
            response = handler(request)
            status = response.status_int
            return response
        finally:
            REQUEST_ID.reset(logged_as)
            # A page carries no problem code.
            answered(request, route, method, status, time.perf_counter() - began,
                     request.state.problem_code if status >= 400 else None)

    def metrics_tween(request):
        method = request.method if request.method in METHODS else "other"
        route = match(request.environ.get("PATH_INFO", ""))  # `path_info` raises on a path that is not UTF-8
        request.environ[ROUTE_TEMPLATE] = route  # the request log's line names it the same
        span = request_span(request, route, method)
        if span is None:
            return answer(request, route, method)
        with span as current:
            response = answer(request, route, method)
            current.set_attribute("http.response.status_code", response.status_int)
            return response

    return metrics_tween
