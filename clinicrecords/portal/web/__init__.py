"""The portal's web foundation, shared by the developer portal and the clinic console: the portal surface and
its route, server-rendered pages (pyramid_jinja2, autoescaped), the session and device cookies and the security
policy (the sessions are the identity context's), CSRF, re-authentication before sensitive actions, security
headers, HTML error pages, form helpers and the audit trail."""

from pyramid_jinja2 import EXTRAS_CONFIG_PHASE

from clinicrecords.portal.surface import PORTAL_PREFIX, SurfacePredicate, portal_prefix, request_surface
from clinicrecords.portal.web.audit import portal_audit_factory
from clinicrecords.portal.web.csrf import CSRF_GUARD, CSRFGuard, csrf_deriver
from clinicrecords.portal.web.faces import portal_face
from clinicrecords.portal.web.headers import copy_script
from clinicrecords.identity.services import IAuditTrail, ISessionService
from clinicrecords.portal.web.interfaces import IOneTimeReads, IPortalAudit
from clinicrecords.portal.web.mail_notice import mail_not_sent, mail_notice_deriver
from clinicrecords.portal.web.once import one_time_reads_factory
from clinicrecords.portal.web.reauth import reauth_deriver
from clinicrecords.portal.web.resources import PortalRoot, Static, add_portal_child
from clinicrecords.portal.web.security import SessionSecurityPolicy, install_surface_policy
from clinicrecords.portal.web.sessions import SessionCookie
from clinicrecords.settings import app_settings


def portal_url(request, *segments, **query):
    """A portal page's path: `request.portal_url("workspaces", ws_id, "keys")` → /portal/workspaces/…/keys."""
    from urllib.parse import urlencode

    path = request.registry[PORTAL_PREFIX] + "/" + "/".join(str(s).strip("/") for s in segments)
    query = {name: value for name, value in query.items() if value not in (None, "")}
    return path + ("?" + urlencode(query) if query else "")


def api_reference_url(request):
    """The API's reference (/v1/docs) at the API's public address: `api.base_url`, or else this host (the portal
    under /portal/ of the API's host)."""
    return request.application_url + "/v1/docs"


def csrf_token(request):
    return request.registry[CSRF_GUARD].token(request)


def idle_sign_out_of(cookie):
    def idle_sign_out(request):
        """`request.idle_sign_out`: when this browser's session cookie names a session that ended by being idle
        (and no one is signed in), its `IdleEnd` (staff or not, the limit in minutes), else None."""
        token = cookie.read(request)
        if not token or request.identity is not None:
            return None
        return request.find_service(ISessionService).idle_end(token)
    return idle_sign_out


def add_template_filter(config, name, function):
    """`{{ value | name }}` in every portal template (once the templates' environment exists)."""
    def register():
        config.get_jinja2_environment().filters[name] = function

    config.action(("portal.template_filter", name), register, order=EXTRAS_CONFIG_PHASE)


def includeme(config):
    settings = app_settings(config.registry)
    prefix = portal_prefix(settings)
    config.registry[PORTAL_PREFIX] = prefix
    add_portal_child(config, "static", Static)
    config.add_request_method(request_surface, "surface", reify=True)
    config.add_request_method(portal_url, "portal_url")
    config.add_request_method(api_reference_url, "api_reference_url", reify=True)
    config.add_request_method(csrf_token, "csrf_token", reify=True)
    config.add_request_method(portal_face, "portal_face", reify=True)
    config.add_request_method(mail_not_sent, "portal_mail_not_sent", property=True)

    config.add_request_method(copy_script, "copy_script")

    cookie = SessionCookie(settings.portal, prefix)
    config.add_request_method(idle_sign_out_of(cookie), "idle_sign_out", reify=True)
    config.registry[CSRF_GUARD] = CSRFGuard(
        "__Host-portal_csrf" if cookie.secure else "portal_csrf", cookie.secure, cookie.path)
    config.register_service_factory(portal_audit_factory, iface=IPortalAudit)
    # The identity context records invitations, joins and acceptances on the portal's trail.
    config.register_service_factory(portal_audit_factory, iface=IAuditTrail)
    config.register_service_factory(one_time_reads_factory(cookie), iface=IOneTimeReads)
    install_surface_policy(config, SessionSecurityPolicy(cookie))

    config.add_route_predicate("surface", SurfacePredicate)
    config.add_route("portal", prefix + "*traverse", factory=PortalRoot, surface="portal")
    config.add_view_deriver(csrf_deriver, name="portal_csrf", under="secured_view")
    config.add_view_deriver(reauth_deriver, name="portal_reauth", under="portal_csrf")
    config.add_view_deriver(mail_notice_deriver, name="portal_mail_notice", under="secured_view")

    config.include("pyramid_jinja2")  # templates fail on an undefined name: LIBRARY_DEFAULTS, jinja2.undefined
    config.add_jinja2_search_path("clinicrecords.portal.web:templates", name=".jinja2")
    config.scan(".views")
    config.scan(".errorviews")
    # Registers the periodic pruning with the Huey instance of whichever process runs the application.
    from clinicrecords.portal.web import tasks  # noqa: F401
