"""One JSON log line per request, and the X-Request-Id header on every answer.

The line names the route with ids folded to {id}; it never carries a key, a query string or a body.
"""

import json
import logging
import re
import time

from pyramid.tweens import INGRESS

log = logging.getLogger("clinicrecords.request")

_ID_SEGMENT = re.compile(r"/[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}(?=/|$)")


# A key pasted into a path (never valid there) must not reach the log either.
_KEY_LIKE = re.compile(r"ehr_[^/]*", re.IGNORECASE)


def route_template(path):
    return _KEY_LIKE.sub("{key}", _ID_SEGMENT.sub("/{id}", path))


def log_line(request_id, method, path, status, started, environ=None):
    """`environ` is absent for what the server refused before there was a request (waitress_refusals)."""
    line = {
        "request_id": request_id,
        "method": method,
        "route": route_template(path),
        "status": status,
        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
    }
    for field, name in (("clinic_id", "clinicrecords.clinic_id"), ("key_id", "clinicrecords.key_id")):
        if environ and environ.get(name):
            line[field] = environ[name]
    log.info(json.dumps(line))


def log_request(request, status, started):
    log_line(request.request_id, request.method, request.environ.get("PATH_INFO", ""), status, started,
             request.environ)


def request_log_tween_factory(handler, registry):
    def request_log_tween(request):
        started = time.perf_counter()
        status = 500
        try:
            try:
                response = handler(request)
            except Exception:
                # A failure above the exception-view tween (a commit that failed) still answers problem+json.
                response = request.invoke_exception_view()
            status = response.status_int
            response.headers["X-Request-Id"] = request.request_id
            return response
        finally:
            log_request(request, status, started)

    return request_log_tween


def includeme(config):
    config.add_tween("clinicrecords.api.request_log.request_log_tween_factory", under=INGRESS)
