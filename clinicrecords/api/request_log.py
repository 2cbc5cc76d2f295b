"""One JSON log line per request, and on every answer the X-Request-Id header with the headers the request's
`state.answer_headers` holds (the rate limit's).

The line names the route by its template (what the metrics tween of clinicrecords.observability found:
the metrics' `route` label and the span's name); a request refused before the tweens ran, by its path
with ids folded to {id}. It never carries a key, a query string or a body.
Requests made with a valid key are also handed, as a `KeyedRequest`, to the sinks contexts register with
`add_request_sink(config, append)` (the workspace's request log): an `append` must return at once, never
block or touch the database on the request's thread.

Who called is asked of the function set with `set_request_caller(config, caller)` (clinicrecords.access: the
key it read, the clinic from the request's context); the problem code is the one the answer was rendered with
(`request.state.problem_code`).
Every answer to a request that carries a valid key is logged to the key's owner, refusals made before the key
was read included (a browser's request, a body over its limit): for those the caller reads the key then.
"""

import logging
import re
import time
from typing import NamedTuple

import orjson
from pyramid.tweens import INGRESS

from clinicrecords.api.render import set_headers

log = logging.getLogger("clinicrecords.request")
# The environ key under which the outermost tween (clinicrecords.observability.http) leaves the request's
# route template, or `unmatched`.
ROUTE_TEMPLATE = "clinicrecords.route_template"

_ID_SEGMENT = re.compile(r"/[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}(?=/|$)")


# A key pasted into a path (never valid there) must not reach the log either.
_KEY_LIKE = re.compile(r"ehr_[^/]*", re.IGNORECASE)


def route_template(path):
    folded = _ID_SEGMENT.sub("/{id}", path)
    return _KEY_LIKE.sub("{key}", folded) if "ehr_" in folded.lower() else folded


class Caller(NamedTuple):
    """What the request log names of the caller, once a valid key was read."""

    owner_id: object  # the key's workspace or clinic (uuid)
    key_id: str
    key_mode: str
    clinic_id: object  # the clinic the path named (uuid), when traversal reached it; else None


class KeyedRequest(NamedTuple):
    """What a sink receives: raw values, cheap to build; the sink cleans the path off the request path."""

    started_at: float  # time.time() when the answer was ready, less the latency
    owner_id: object  # the key's workspace or clinic (uuid)
    key_id: str
    key_mode: str
    clinic_id: object  # the clinic the path named (uuid), when traversal reached it; else None
    method: str
    path: str  # PATH_INFO as sent: the sink decides what of it is kept
    status: int
    code: str | None  # the problem code of a failure
    request_id: str
    latency_ms: float


def keyed_request(request, caller, status, latency_ms):
    code = request.state.problem_code if status >= 400 else None
    return KeyedRequest(time.time() - latency_ms / 1000, caller.owner_id, caller.key_id, caller.key_mode,
                        caller.clinic_id, request.method, request.environ.get("PATH_INFO", ""), status,
                        code, request.request_id, latency_ms)


def log_line(request_id, method, path, status, latency_ms, caller=None, route=None):
    """`caller` is absent for what the server refused before there was a request (waitress_refusals); `route`,
    for what was refused before it was routed: then the path names it, ids folded."""
    line = {
        "request_id": request_id,
        "method": method,
        "route": route or route_template(path),
        "status": status,
        "duration_ms": latency_ms,
    }
    if caller is not None:
        if caller.clinic_id:
            line["clinic_id"] = caller.clinic_id
        line["key_id"] = caller.key_id
    # A line per request: orjson builds it in a tenth of the time, and writes a uuid as its text.
    log.info(orjson.dumps(line).decode())


def elapsed_ms(started):
    return round((time.perf_counter() - started) * 1000, 2)


def _no_caller(request, read_key=False):
    return None


def log_request(request, status, started, sinks=(), caller_of=_no_caller):
    latency_ms = elapsed_ms(started)
    # A refusal may come before the key was read: the caller reads it then, so its owner sees the refusal.
    caller = caller_of(request, read_key=status >= 400)
    path = request.environ.get("PATH_INFO", "")
    log_line(request.request_id, request.method, path, status, latency_ms, caller,
             request.environ.get(ROUTE_TEMPLATE))
    if sinks and caller is not None:
        entry = keyed_request(request, caller, status, latency_ms)
        for append in sinks:
            append(entry)


# What the contexts register here (`add_request_sink`, `set_request_caller`), kept in the registry.
REQUEST_SINKS = "api.request_sinks"
REQUEST_CALLER = "api.request_caller"


def request_loggers(registry):
    """(sinks, caller) as the contexts registered them: what `log_request` hands each keyed request to."""
    return tuple(registry.get(REQUEST_SINKS, ())), registry.get(REQUEST_CALLER, _no_caller)


def request_log_tween_factory(handler, registry):
    sinks, caller_of = request_loggers(registry)

    def request_log_tween(request):
        started = time.perf_counter()
        status = 500
        response = None
        try:
            try:
                response = handler(request)
            except Exception:
                # A failure above the exception-view tween (a commit that failed) still answers problem+json.
                response = request.invoke_exception_view()
            status = response.status_int
            set_headers(response, {**request.state.answer_headers, "X-Request-Id": request.request_id})
            return response
        finally:
            log_request(request, status, started, sinks, caller_of)

    return request_log_tween


def add_request_sink(config, append):
    """`append(KeyedRequest)` is called on every keyed request's thread, after its answer is ready."""
    config.registry.setdefault(REQUEST_SINKS, []).append(append)


def set_request_caller(config, caller):
    """`caller(request, read_key=False)` → a `Caller`, or None. Without `read_key` it never reads the key (None
    when none was read); with it (a refusal's answer) it reads one the request sends, and never raises."""
    config.registry[REQUEST_CALLER] = caller


def includeme(config):
    config.add_tween("clinicrecords.api.request_log.request_log_tween_factory", under=INGRESS)
