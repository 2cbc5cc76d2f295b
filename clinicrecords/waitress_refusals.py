"""What waitress refuses by itself, before the application sees the request, answered as problem+json.

waitress answers a body over its `max_request_body_size`, a header block over `max_request_header_size`
(a URL of 16 KiB included), malformed HTTP and an unknown transfer coding with a plain-text page, and then
closes the connection while the client may still be sending: the client's kernel then resets the connection
and the answer is lost. Here:

- a body over its route's limit (the application's own, from Content-Length) is refused as soon as the
  headers are read, so none of it is buffered;
- each of those answers is problem+json with a stable code, a request id and the security headers, and
  writes one request-log line (a head refused for a malformed header line included);
- a refused request is never told `100 Continue`: a client waiting for it gets the final answer instead;
- after such an answer the server stops writing (FIN) but keeps reading and discarding what the client
  still sends, for at most LINGER_SECONDS, so the client reads the answer rather than a reset
  (Apache's "lingering close").
"""

import json
import socket
import time
from http import HTTPStatus

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.task import ErrorTask
from waitress.utilities import RequestEntityTooLarge, RequestHeaderFieldsTooLarge, ServerNotImplemented

from clinicrecords.api.limits import SECURITY_HEADERS
from clinicrecords.api.problems import PROBLEM_JSON, Problem
from clinicrecords.api.request_id import new_request_id
from clinicrecords.api.request_log import elapsed_ms, log_line

LINGER_SECONDS = 30
LINGER_READ_BYTES = 256 * 1024


def _request_target_length(header_text):
    request_line = header_text.lstrip().split(b"\n", 1)[0]
    parts = request_line.split(b" ")
    return len(parts[1]) if len(parts) > 1 else len(request_line)


class RouteBodyTooLarge(RequestEntityTooLarge):
    def __init__(self, limit):
        super().__init__(f"exceeds the route's limit of {limit}")
        self.limit = limit


class ProblemParser(HTTPRequestParser):
    """Refuses a body over its route's limit from Content-Length, before reading any of it; tells an
    over-long URL from an over-large header block; never lets a refused request continue.
    `limits` is the application's LimitedExecutionPolicy (see problem_channel)."""

    limits = None
    url_too_long = False
    # waitress sets these only once the whole head has parsed; a refused head may have none.
    command = None
    path = None

    def received(self, data):
        reading_headers = not self.headers_finished
        seen = self.header_plus + data if reading_headers else b""
        consumed = super().received(data)
        if reading_headers and self.headers_finished and self.content_length and (
                self.error is None or isinstance(self.error, RequestEntityTooLarge)):
            # Also over waitress's own cap: the route's limit is the more useful answer.
            limit = self.limits.body_limit(self.command, self.path)
            if self.content_length > limit:
                self.error, self.completed = RouteBodyTooLarge(limit), True
        if self.error is None:
            return consumed
        if isinstance(self.error, RequestHeaderFieldsTooLarge):
            self.url_too_long = _request_target_length(seen) > self.limits.max_url
        self.expect_continue = False
        # The rest of this read belongs to the refused request: it is not parsed as another one.
        return len(data)


def _request_line(request):
    """The method and path to log: a head refused after its first line (a malformed header line) still
    names them from that line; never the query string."""
    if request.command is not None:
        return request.command, request.path or ""
    method, _, target = getattr(request, "first_line", b"").decode("latin-1").partition(" ")
    return method, target.partition(" ")[0].partition("?")[0]


def _problem(request):
    error = request.error
    if isinstance(error, RouteBodyTooLarge):
        return Problem("payload_too_large", f"The body may be at most {error.limit} bytes.")
    if isinstance(error, RequestEntityTooLarge):
        return Problem("payload_too_large", "The body is larger than any request to this server may send.")
    if isinstance(error, RequestHeaderFieldsTooLarge):
        if request.url_too_long:
            return Problem("uri_too_long", f"The URL may be at most {request.limits.max_url} characters.")
        return Problem("request_header_too_large", "The request line and headers are too large.")
    if isinstance(error, ServerNotImplemented):
        return Problem("not_implemented", "The request's transfer coding is not supported (send the body "
                       "with Content-Length or Transfer-Encoding: chunked).")
    if error.code == 400:
        return Problem("invalid_request", f"The request is not valid HTTP: {error.body}.")
    return Problem("internal_error")


class ProblemErrorTask(ErrorTask):
    def execute(self):
        started = time.perf_counter()
        problem = _problem(self.request)
        request_id = new_request_id()
        body = json.dumps(problem.body(request_id)).encode()
        self.status = f"{problem.status} {HTTPStatus(problem.status).phrase}"
        self.response_headers.extend([("Content-Type", PROBLEM_JSON), ("X-Request-Id", request_id),
                                      *SECURITY_HEADERS.items()])
        self.set_close_on_finish()
        self.channel.linger_after_answer = True
        self.content_length = len(body)
        self.write(body)
        log_line(request_id, *_request_line(self.request), problem.status, elapsed_ms(started))


class ProblemChannel(HTTPChannel):
    parser_class = ProblemParser
    error_task_class = ProblemErrorTask
    linger_after_answer = False
    linger_until = None

    def handle_close(self):
        if self.linger_after_answer and self.linger_until is None and self._stop_writing():
            return
        super().handle_close()

    def _stop_writing(self):
        self.linger_after_answer = False
        try:
            self.socket.shutdown(socket.SHUT_WR)
        except OSError:
            return False
        self.will_close = self.close_when_flushed = False
        self.linger_until = time.monotonic() + LINGER_SECONDS
        return True

    def handle_read(self):
        if self.linger_until is None:
            return super().handle_read()
        # Discard: the answer is sent; reading on lets the client finish sending and then read it.
        # last_activity is left alone, so the server's idle sweep still ends a client that never stops.
        # recv() closes the channel itself when the client has closed its side.
        if self.recv(LINGER_READ_BYTES) and time.monotonic() > self.linger_until:
            self.handle_close()


def problem_channel(limits):
    """The channel class for an application whose input limits are `limits` (its LimitedExecutionPolicy)."""
    parser = type("ProblemParser", (ProblemParser,), {"limits": limits})
    return type("ProblemChannel", (ProblemChannel,), {"parser_class": parser})
