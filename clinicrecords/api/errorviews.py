"""Every failure of every route, rendered as problem+json.

Unknown paths are 404 not_found, a documented route asked with a method it does not answer is 405 with
`Allow` (decided by the URL's shape, whether or not the record it names exists or is within the key's reach:
docs/decisions/0070-document-and-server-agree.md), a missing or bad key is 401 invalid_key, a missing permission
403 scope_missing naming it (also instead of 404 and 405 where the look guard refuses: a key that may not look
there learns nothing), a database or a Redis (rate limits, queue) that does not answer or cannot take writes 503,
and anything unexpected 500 internal_error with no internals in the body.
"""

import logging

from psycopg import errors as pg_errors
from pyramid.httpexceptions import HTTPException
from pyramid.view import exception_view_config, forbidden_view_config, notfound_view_config
from redis import exceptions as redis_errors
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from clinicrecords.api.idempotency import replay_for_missing_record
from clinicrecords.api.problems import Problem, problem_response
from clinicrecords.api.routes import route_methods
from clinicrecords.failures import value_free_traceback

log = logging.getLogger(__name__)


_STATUS_CODES = {400: "invalid_request", 404: "not_found", 405: "method_not_allowed", 406: "not_acceptable",
                 413: "payload_too_large", 415: "unsupported_media_type", 429: "rate_limited",
                 503: "service_unavailable"}


@exception_view_config(Problem)
def problem_view(exc, request):
    return problem_response(request, exc)


# What this module keeps in the registry: the guards access sets (`set_look_guard`, `set_replay_guard`) and the
# methods each (context class, view name) answers, read once from Pyramid's view registrations.
LOOK_GUARD = "api.look_guard"
REPLAY_GUARD = "api.replay_guard"
ALLOWED_METHODS = "api.allowed_methods"


def allowed_methods(request):
    """The methods the views of this context and view name answer, from Pyramid's own view registrations."""
    cache = request.registry.setdefault(ALLOWED_METHODS, {})
    key = (type(request.context), request.view_name)
    if key not in cache:
        methods = set()
        for view in request.registry.introspector.get_category("views"):
            intr = view["introspectable"]
            context = intr["context"]
            if intr["name"] != request.view_name or not isinstance(context, type):
                continue
            declared = intr["request_methods"]
            if isinstance(request.context, context) and declared:
                methods.update((declared,) if isinstance(declared, str) else declared)
        cache[key] = frozenset(methods)
    return cache[key]


def _answered(methods):
    """Pyramid answers HEAD wherever it answers GET."""
    return methods | {"HEAD"} if "GET" in methods else methods


@notfound_view_config()
def not_found_view(exc, request):
    context = getattr(request, "context", None)
    guard = request.registry.get(LOOK_GUARD)
    missing = guard(request, context) if guard is not None and context is not None else None
    if missing is not None:
        return problem_response(request, scope_missing(missing))
    methods = allowed_methods(request) if context is not None else frozenset()
    if not methods:
        # Traversal stopped before the resource (a record that is absent or out of reach, a clinic the key
        # does not reach): the route's template still says which methods it answers.
        methods = route_methods(request.registry, request.environ.get("PATH_INFO", ""))
    if methods and request.method not in _answered(methods):
        allow = ", ".join(sorted(methods))
        return problem_response(
            request, Problem("method_not_allowed", f"Allowed methods: {allow}.", headers={"Allow": allow}))
    # A method the path answers, on a record already gone: a retried DELETE replays its first answer.
    replay_guard = request.registry.get(REPLAY_GUARD)
    if replay_guard is not None and context is not None and replay_guard(request, context):
        try:
            replayed = replay_for_missing_record(request)
        except Problem as problem:  # raised inside an exception view: rendered here, not by problem_view
            return problem_response(request, problem)
        if replayed is not None:
            return replayed
    return problem_response(
        request, Problem("not_found", "The resource does not exist or is not within this key's reach."))


@forbidden_view_config()
def forbidden_view(exc, request):
    if request.identity is None:
        return problem_response(request, Problem("invalid_key"))
    # The security policy's refusal names what is missing, as the caller should read it.
    return problem_response(request, scope_missing(getattr(exc.result, "permission", None)))


def scope_missing(missing):
    return Problem("scope_missing", f"This key lacks the permission {missing}." if missing else None)


@exception_view_config(HTTPException)
def http_exception_view(exc, request):
    code = _STATUS_CODES.get(exc.status_int)
    if code is None:
        return exc
    return problem_response(request, Problem(code, status=exc.status_int))


def is_unavailable(exc):
    # A pool with no free connection within its timeout is the database not answering in time, too.
    if isinstance(exc, (OperationalError, PoolTimeout)) or (isinstance(exc, DBAPIError) and exc.connection_invalidated):
        return True
    original = getattr(exc, "orig", None)
    return isinstance(original, (pg_errors.QueryCanceled, pg_errors.DiskFull, pg_errors.AdminShutdown,
                                 pg_errors.CannotConnectNow, pg_errors.LockNotAvailable,
                                 pg_errors.ReadOnlySqlTransaction))  # a standby: db/reconnect.py


@exception_view_config(DBAPIError)
@exception_view_config(PoolTimeout)
def database_error_view(exc, request):
    if is_unavailable(exc):
        log.warning("database unavailable: %s", type(getattr(exc, "orig", exc)).__name__,
                    extra={"request_id": request.request_id})
        problem = Problem("service_unavailable", "The database did not answer in time. Retry shortly.",
                          headers={"Retry-After": "2"})
        return problem_response(request, problem)
    return internal_error_view(exc, request)


# Answers of a Redis that is up but cannot take writes now: a demoted primary reached without Sentinel
# (READONLY), a replica cut off from its primary (MASTERDOWN), a full one (OOM, under noeviction), one that cannot
# persist (MISCONF) or lacks the replicas min-replicas-to-write asks for (NOREPLICAS).
_REDIS_REFUSALS = (redis_errors.ReadOnlyError, redis_errors.MasterDownError, redis_errors.OutOfMemoryError,
                   redis_errors.TryAgainError)
_REDIS_REFUSAL_CODES = {"MISCONF", "NOREPLICAS"}


def is_redis_refusal(exc):
    # A pipeline's error message starts with the command it failed on, so the code is looked for as a word.
    return isinstance(exc, _REDIS_REFUSALS) or bool(_REDIS_REFUSAL_CODES & set(str(exc).split()))


@exception_view_config(redis_errors.ConnectionError)
@exception_view_config(redis_errors.TimeoutError)
@exception_view_config(redis_errors.ResponseError)
def redis_unavailable_view(exc, request):
    # ConnectionError covers a Redis that is down, restarting or still loading its append-only file, and a
    # Sentinel-managed primary that was demoted or that no Sentinel names (redis-py's Sentinel pool).
    if isinstance(exc, redis_errors.ResponseError) and not is_redis_refusal(exc):
        return internal_error_view(exc, request)
    log.warning("redis unavailable: %s", type(exc).__name__, extra={"request_id": request.request_id})
    problem = Problem("service_unavailable", "A backing service did not answer. Retry shortly.",
                      headers={"Retry-After": "2"})
    return problem_response(request, problem)


@exception_view_config(Exception)
def internal_error_view(exc, request):
    log.error("unhandled error in request %s\n%s", request.request_id, value_free_traceback(exc))
    return problem_response(request, Problem("internal_error", "An unexpected error occurred."))


def set_look_guard(config, guard):
    """`guard(request, context)` → the permission to name in 403 scope_missing when the key may not even
    look at `context`, else None: asked before a 404 or 405 is answered (clinicrecords.access sets it)."""
    config.registry[LOOK_GUARD] = guard


def set_replay_guard(config, guard):
    """`guard(request, context)` → True when the not-found view may replay a stored Idempotency-Key answer
    (`idempotency.replay_for_missing_record`) at `context`: inside a clinic the key reaches now, so nothing
    is replayed from a clinic it no longer reaches (clinicrecords.access sets it)."""
    config.registry[REPLAY_GUARD] = guard


def includeme(config):
    config.scan(".errorviews")
