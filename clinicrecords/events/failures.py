"""Why a webhook request failed, in words: the one place a network or HTTP failure becomes the sentence that
the webhook pages (a test event's answer, the deliveries log), the operator CLI and the stored attempts show.

People read these, not engineers at a debugger: "[Errno -2] Name or service not known" says nothing to a
clinic's admin, "No server named hooks.example.org was found" does. Each sentence names what failed and,
where one helps, what to check."""

import errno
import http.client
import socket
import ssl
from http import HTTPStatus

# Certificate problems OpenSSL reports by code (X509_V_ERR_*), in words.
_CERTIFICATE_PROBLEMS = {
    10: "it has expired",
    9: "it is not valid yet",
    18: "it is self-signed",
    19: "it is signed by an authority nobody trusts (a self-signed chain)",
    20: "it is not signed by a known certificate authority",
    21: "it is not signed by a known certificate authority",
    62: "it is not for this host name",
    64: "it is not for this address",
}
_UNREACHABLE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL}
_NOT_FOUND = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


def name_not_found(host, exc):
    """A host name the resolver could not turn into an address (`exc`: its gaierror or UnicodeError)."""
    if isinstance(exc, UnicodeError):
        return f"{host} is not a valid host name."
    if isinstance(exc, socket.gaierror) and exc.errno not in _NOT_FOUND:
        return f"The name servers did not answer for {host} just now; try again later."
    return f"No server named {host} was found: check the spelling, or that its DNS record is published."


def bad_url(exc):
    """A URL the standard library could not take apart (`urlsplit`'s ValueError)."""
    if "port" in str(exc).lower():
        return "The URL's port must be a number from 1 to 65535."
    return "This is not a valid URL."


def no_answer(timeout):
    return f"The receiver gave no answer within {timeout:g} s."


def http_status(status):
    """A receiver's answer other than 2xx."""
    try:
        phrase = f" {HTTPStatus(status).phrase}"
    except ValueError:
        phrase = ""
    if 300 <= status < 400:
        return (f"The receiver answered {status}{phrase}, a redirect: redirects are not followed, so give the "
                "address it redirects to.")
    return f"The receiver answered {status}{phrase}: only a 2xx answer counts as delivered."


def connection_failed(exc, host, port):
    """A failure while connecting, in TLS, or while reading the answer."""
    if isinstance(exc, socket.gaierror):
        return name_not_found(host, exc)
    if isinstance(exc, ssl.SSLCertVerificationError):
        problem = _CERTIFICATE_PROBLEMS.get(exc.verify_code, "it could not be checked")
        return f"The receiver's TLS certificate is not trusted: {problem}."
    if isinstance(exc, ssl.SSLError):
        return (f"The secure connection (TLS) to {host}:{port} failed: the receiver may not speak https on "
                "this port.")
    if isinstance(exc, ConnectionRefusedError):
        return f"{host} refused the connection: nothing accepts connections on port {port}."
    if isinstance(exc, (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected)):
        return "The receiver closed the connection before it answered."
    if isinstance(exc, http.client.HTTPException):
        return "The receiver's answer was not a valid HTTP answer."
    if isinstance(exc, OSError) and exc.errno in _UNREACHABLE:
        return f"{host} cannot be reached from here: there is no network route to it."
    return f"The connection to {host}:{port} failed."
