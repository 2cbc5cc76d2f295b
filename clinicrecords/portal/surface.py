"""Which surface a request is for, decided once per request from its host or path: the API or the portal.

By default the portal lives under `/portal/` of the API's own host; with `portal.host` set (production) it
answers on that host only, at its root, and the API host has no `/portal/` at all.
"""

# The portal's address is also needed outside the portal (mail's links), so it is the platform's.
from clinicrecords.api.public_url import PORTAL_PATH, portal_base_url, portal_host
from clinicrecords.settings import app_settings

__all__ = ["PORTAL_PATH", "PORTAL_PREFIX", "SurfacePredicate", "is_portal", "portal_base_url", "portal_host",
           "portal_prefix", "request_surface"]

# The path the portal's pages start with (`portal_prefix`), kept in the registry by clinicrecords.portal.web.
PORTAL_PREFIX = "portal.prefix"


def portal_prefix(settings):
    """The path the portal's pages start with: "" on a host of its own, else "/portal"."""
    return "" if portal_host(settings) else PORTAL_PATH


def is_portal(environ, settings):
    host = portal_host(settings)
    if host:
        requested = (environ.get("HTTP_HOST") or environ.get("SERVER_NAME") or "").lower()
        return requested.rsplit(":", 1)[0] == host.rsplit(":", 1)[0]
    path = environ.get("PATH_INFO", "")
    return path == PORTAL_PATH or path.startswith(PORTAL_PATH + "/")


def request_surface(request):
    return "portal" if is_portal(request.environ, app_settings(request.registry)) else "api"


class SurfacePredicate:
    """Route predicate `surface="portal"`: the portal's route matches only on its own surface, so with
    `portal.host` set its catch-all pattern never swallows an API path."""

    def __init__(self, value, config):
        self.value = value

    def text(self):
        return f"surface = {self.value}"

    phash = text

    def __call__(self, info, request):
        return request.surface == self.value
