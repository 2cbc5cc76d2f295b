"""Input limits and response hardening, applied before any of the request is read.

pyramid_retry's execution policy buffers the whole body (to replay it on a retry) before any tween runs, so
the limits wrap that policy: a body larger than its route allows (its view's `body_limit=`, else
`api.max_body_bytes`, 1 MiB) is refused with 413 from Content-Length alone, and an over-long URL with 414.
Every answer, refusals included, carries the security headers; with `security.hsts` on (production), every
answer to an https request (`wsgi.url_scheme`, as waitress sets it from the trusted proxy's
X-Forwarded-Proto) carries Strict-Transport-Security too, on the API and the portal alike.
"""

import io
import time

from pyramid.interfaces import IExecutionPolicy

from clinicrecords.api.problems import Problem, problem_response
from clinicrecords.api.request_log import log_request, request_loggers
from clinicrecords.api.routes import operations, template_pattern
from clinicrecords.settings import app_settings

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    # The API serves JSON only: nothing may be loaded, framed or run from an answer.
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
_SECURITY_HEADER_ITEMS = tuple(SECURITY_HEADERS.items())
_SECURITY_HEADER_NAMES = frozenset(name.lower() for name in SECURITY_HEADERS)
# A year, subdomains included; only ever sent over https (a browser ignores it over http anyway).
HSTS = ("Strict-Transport-Security", "max-age=31536000; includeSubDomains")


def route_body_limits(registry):
    """(method, path pattern, limit) of every route whose view declares `body_limit=`."""
    return [(op.method, template_pattern(op.path), op.options["body_limit"])
            for op in operations(registry) if op.options.get("body_limit")]


class LimitedExecutionPolicy:
    def __init__(self, inner, registry):
        self.inner = inner
        self.registry = registry
        settings = app_settings(registry)
        self.max_body = settings.api.max_body_bytes
        self.max_url = settings.api.max_url_length
        self.hsts = settings.security.hsts
        self._routes = None

    def body_limit(self, method, path):
        for route_method, pattern, limit in self._route_limits():
            if route_method == method and pattern.match(path):
                return limit
        return self.max_body

    def largest_body(self):
        """The most any route accepts: the server's own cap must sit above it, so the app answers the rest."""
        return max([self.max_body] + [limit for _, _, limit in self._route_limits()])

    def _route_limits(self):
        if self._routes is None:
            self._routes = route_body_limits(self.registry)
        return self._routes

    def refusal(self, environ):
        path = environ.get("PATH_INFO", "")
        if len(path) + len(environ.get("QUERY_STRING", "")) > self.max_url:
            return Problem("uri_too_long", f"The URL may be at most {self.max_url} characters.")
        declared = environ.get("CONTENT_LENGTH") or "0"
        if not declared.isdigit():
            return Problem("invalid_request", "The Content-Length header is not a number.")
        limit = self.body_limit(environ.get("REQUEST_METHOD", "GET"), path)
        if int(declared) > limit:
            return Problem("payload_too_large", f"The body may be at most {limit} bytes.")
        return None

    def __call__(self, environ, router):
        started = time.perf_counter()
        problem = self.refusal(environ)
        if problem is not None:
            with router.request_context(environ) as request:
                response = problem_response(request, problem)
                response.headers["X-Request-Id"] = request.request_id
                # Refused before the tweens run, so the request-log tween never sees this answer.
                sinks, caller_of = request_loggers(self.registry)
                log_request(request, response.status_int, started, sinks, caller_of)
        else:
            if (environ.get("CONTENT_LENGTH") or "0") == "0" and "HTTP_TRANSFER_ENCODING" not in environ:
                settle_empty_body(environ)
            response = self.inner(environ, router)
        present = {name.lower() for name, _ in response.headerlist}  # one pass, not one per header
        if present.isdisjoint(_SECURITY_HEADER_NAMES):  # almost every answer sets none of them itself
            response.headerlist.extend(_SECURITY_HEADER_ITEMS)
        else:
            response.headerlist.extend((name, value) for name, value in _SECURITY_HEADER_ITEMS
                                       if name.lower() not in present)
        if self.hsts and environ.get("wsgi.url_scheme") == "https":
            response.headerlist.append(HSTS)
        return response


def settle_empty_body(environ):
    """A request without a body as pyramid_retry's `make_body_seekable` leaves it, without reading the input
    stream to find it empty (webob's copy, on every GET): an empty, seekable body of length 0."""
    environ["wsgi.input"] = io.BytesIO()
    environ["CONTENT_LENGTH"] = "0"
    environ["webob.is_body_seekable"] = True


def input_limits(registry):
    """The application's LimitedExecutionPolicy (its body and URL limits)."""
    return registry.getUtility(IExecutionPolicy)


def includeme(config):
    def wrap():
        registry = config.registry
        inner = registry.queryUtility(IExecutionPolicy)
        if inner is None:
            from pyramid.router import default_execution_policy as inner
        registry.registerUtility(LimitedExecutionPolicy(inner, registry), IExecutionPolicy)

    # After every other action, so the policy it wraps (pyramid_retry's) is already registered.
    config.action(None, wrap, order=10)
