"""One HTTP POST to a webhook address: bounded time, no redirects followed, and no private addresses
(`events/addresses.py`: IPv4 addresses embedded in IPv6 ones are judged too).

The address is resolved once, checked, and the connection is made to that checked address (the name is
still used for Host and TLS), so DNS cannot swap in a private address between the check and the request.
"""

import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from clinicrecords.errors import InvalidInput
from clinicrecords.events import failures
from clinicrecords.events.addresses import is_loopback, is_private

MAX_URL_LENGTH = 2000
# The start of a receiver's answer kept for the deliveries log and a test event's result.
RESPONSE_BODY_BYTES = 1024
USER_AGENT = "ClinicRecords-Webhooks/1.0"


class AddressRefused(InvalidInput):
    """The URL is not one the service will send to."""


@dataclass(frozen=True)
class Result:
    ok: bool
    status_code: int | None
    error: str | None
    seconds: float
    body: str | None = None     # the first RESPONSE_BODY_BYTES of the answer, decoded leniently


def _body_start(raw):
    # PostgreSQL text cannot hold NUL; each byte decodes to at most one character, so 1 KiB stays 1 KiB.
    return raw[:RESPONSE_BODY_BYTES].decode("utf-8", errors="replace").replace("\x00", "\ufffd")


def check_url(url, allow_private=False, require_https=True):
    """(scheme, host, port, path, address) for an acceptable URL, else AddressRefused."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        raise AddressRefused(f"the URL must be 1 to {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise AddressRefused(failures.bad_url(exc)) from None
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise AddressRefused("the URL must be http(s)://host/...")
    if parts.scheme == "http" and require_https:
        raise AddressRefused("the URL must use https")
    if parts.username or parts.password:
        raise AddressRefused("the URL may not carry credentials")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise AddressRefused(failures.name_not_found(parts.hostname, exc)) from None
    addresses = [info[4][0] for info in infos]
    if parts.scheme == "http" and not all(is_loopback(a) for a in addresses):
        raise AddressRefused("plain http is accepted only to a loopback address (development); use https")
    if not allow_private and any(is_private(a) for a in addresses):
        raise AddressRefused(f"the host {parts.hostname!r} resolves to a private, loopback or link-local "
                             "address (or one embedding such an IPv4 address)")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path, addresses[0]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, address, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._address = address

    def connect(self):
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, address, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def _cut(connection, fired):
    """Shut the socket down: a read blocked in another thread returns at once."""
    fired.set()
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def post(url, body, headers, timeout, allow_private=False, require_https=True):
    """POST `body`; 2xx is success. Redirects are answers like any other non-2xx: never followed.

    `timeout` bounds the whole attempt, not only each socket operation: a receiver that drips its answer a
    byte at a time is cut off when the time is up."""
    started = time.monotonic()
    try:
        scheme, host, port, path, address = check_url(url, allow_private, require_https)
    except AddressRefused as exc:
        return Result(False, None, str(exc), time.monotonic() - started)
    if scheme == "https":
        connection = _PinnedHTTPSConnection(address, host, port, timeout=timeout,
                                            context=ssl.create_default_context())
    else:
        connection = _PinnedHTTPConnection(address, host, port, timeout=timeout)
    fired = threading.Event()
    deadline = threading.Timer(timeout, _cut, (connection, fired))
    deadline.daemon = True
    deadline.start()
    try:
        connection.request("POST", path, body=body, headers={
            **headers, "Content-Type": "application/json", "User-Agent": USER_AGENT})
        response = connection.getresponse()
        raw = response.read(65536)
        status = response.status
    except TimeoutError:
        return Result(False, None, failures.no_answer(timeout), time.monotonic() - started)
    except (OSError, http.client.HTTPException) as exc:
        if fired.is_set():
            return Result(False, None, failures.no_answer(timeout), time.monotonic() - started)
        return Result(False, None, failures.connection_failed(exc, host, port), time.monotonic() - started)
    finally:
        deadline.cancel()
        connection.close()
    if fired.is_set():  # a cut answer reads as complete to http.client: it is a failure, whatever its status
        return Result(False, None, failures.no_answer(timeout), time.monotonic() - started)
    error = None if 200 <= status < 300 else failures.http_status(status)
    return Result(200 <= status < 300, status, error, time.monotonic() - started, _body_start(raw))
