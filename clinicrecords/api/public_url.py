"""Absolute URLs (Location, FHIR links and fullUrl) from the configured public base URL `api.base_url`, and
the portal's public address for links made outside a request (invitations printed by the CLI, mail).

Behind a proxy the Host header is whatever the client sent: a URL built from it would point a partner at
any host an attacker names. In production the base URL is configured (production.ini reads
$CLINICRECORDS_BASE_URL) and the Host header is never used for a URL; without the setting (development)
the request's own Host is kept.
"""

from dataclasses import dataclass
from urllib.parse import urlsplit

from clinicrecords.listening import local_base_url
from clinicrecords.settings import SettingsError, app_settings

# The parsed `api.base_url` (a PublicBase, or None), kept in the registry for every request's URLs.
REGISTRY_KEY = "api.public_base"


@dataclass(frozen=True)
class PublicBase:
    host_url: str  # scheme://host[:port]
    application_url: str  # host_url plus the path the API is served under, without a trailing slash


def parse_base_url(value):
    """`https://api.example.org` or `https://example.org/ehr`; None when unset."""
    if not value or not value.strip():
        return None
    parts = urlsplit(value.strip())
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.query or parts.fragment \
            or parts.username or parts.password:
        raise SettingsError(f"api.base_url must be an absolute http(s) URL without query, fragment or credentials, "
                            f"not {value!r}")
    host_url = f"{parts.scheme}://{parts.netloc.lower()}"
    return PublicBase(host_url, host_url + parts.path.rstrip("/"))


def service_base_url(settings):
    """The service's public address for what is built outside a request (the operator CLI): `api.base_url`
    when set; else (development) where the running service recorded it answers, when the CLI follows it
    (`server.served_url`); else where this machine reaches the server the ini describes."""
    base = parse_base_url(settings.api.base_url)
    if base:
        return base.application_url
    return settings.server.served_url or local_base_url(settings.server.listen)


def served_address_note(settings):
    """A sentence for the operator when the running service answers elsewhere than the ini (with this shell's
    $HOST and $PORT) or `api.base_url` says; None when they agree or no service recorded its address."""
    served = settings.server.served_url
    if not served:
        return None
    base = parse_base_url(settings.api.base_url)
    if base and base.application_url != served:
        expected = f"api.base_url, {base.application_url},"
    elif not base and local_base_url(settings.server.listen) != served:
        expected = f"the ini's listen with this shell's HOST and PORT, {local_base_url(settings.server.listen)},"
    else:
        return None
    return (f"the service running on this database answers at {served}, while {expected} names another address; "
            f"links start with {portal_base_url(settings)}")


PORTAL_PATH = "/portal"


def portal_host(settings):
    """`portal.host` of the application's settings (an AppSettings), lower case; "" when unset."""
    return settings.portal.host.strip().lower()


def portal_base_url(settings):
    """The portal's public address, for links made outside a request (the operator CLI's invitations, mail):
    `portal.url`; else https on `portal.host`; else /portal under the service's own address (`api.base_url`,
    or in development the host and port the server listens on)."""
    configured = settings.portal.url.rstrip("/")
    if configured:
        return configured
    if portal_host(settings):
        return f"https://{portal_host(settings)}"
    return service_base_url(settings) + PORTAL_PATH


class PublicUrls:
    """Request mixin: webob's host_url and application_url (and so url, path_url and pyramid's resource_url)
    from the configured base when there is one."""

    def _public_base(self):
        registry = getattr(self, "registry", None)
        return registry.get(REGISTRY_KEY) if registry is not None else None

    @property
    def host_url(self):
        base = self._public_base()
        return base.host_url if base else super().host_url

    @property
    def application_url(self):
        base = self._public_base()
        return base.application_url if base else super().application_url


def includeme(config):
    config.registry[REGISTRY_KEY] = parse_base_url(app_settings(config.registry).api.base_url)
