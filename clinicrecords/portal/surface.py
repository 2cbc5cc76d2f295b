"""Which surface a request is for, decided once per request from its host or path: the API or the portal.

By default the portal lives under `/portal/` of the API's own host; with `portal.host` set (production) it
answers on that host only, at its root, and the API host has no `/portal/` at all.
"""

from clinicrecords.api.public_url import service_base_url
from clinicrecords.settings import app_settings

PORTAL_PATH = "/portal"
# The path the portal's pages start with (`portal_prefix`), kept in the registry by clinicrecords.portal.web.
PORTAL_PREFIX = "portal.prefix"


def portal_host(settings):
    """`portal.host` of the application's settings (an AppSettings), lower case; "" when unset."""
    return settings.portal.host.strip().lower()


def portal_prefix(settings):
    """The path the portal's pages start with: "" on a host of its own, else "/portal"."""
    return "" if portal_host(settings) else PORTAL_PATH


def portal_base_url(settings):
    """The portal's public address, for links made outside a request (the operator CLI's invitations):
    `portal.url`; else https on `portal.host`; else /portal under the service's own address (`api.base_url`,
    or in development the host and port the server listens on)."""
    configured = settings.portal.url.rstrip("/")
    if configured:
        return configured
    if portal_host(settings):
        return f"https://{portal_host(settings)}"
    return service_base_url(settings) + PORTAL_PATH


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
