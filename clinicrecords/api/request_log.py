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


def log_request(request, status, started):
    line = {
        "request_id": request.request_id,
        "method": request.method,
        "route": route_template(request.environ.get("PATH_INFO", "")),
        "status": status,
        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
    }
    clinic_id = request.environ.get("clinicrecords.clinic_id")
    if clinic_id:
        line["clinic_id"] = clinic_id
    key_id = request.environ.get("clinicrecords.key_id")
    if key_id:
        line["key_id"] = key_id
    log.info(json.dumps(line))


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
