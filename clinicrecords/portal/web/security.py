"""Two security policies in one application, one per surface.

The API keeps its bearer-key policy untouched; the portal's pages get a policy of their own whose identity
is a signed-in member's server-side session. The dispatcher asks `request.surface` (decided once per request
from host and path), so a key never opens a portal page and a portal cookie never opens an API route. Both
decide every permission with the one permission map (clinicrecords.access.permission_map).
"""

from pyramid.interfaces import PHASE2_CONFIG, ISecurityPolicy
from pyramid.request import RequestLocalCache
from pyramid.security import Allowed, Denied

from clinicrecords.access.services import holds
from clinicrecords.identity.services import ISessionService
from clinicrecords.portal.web.devices import DeviceCookie
from clinicrecords.portal.web.resources import STAFF


# [finder(request, identity) → principals] the areas add, kept in the registry.
PRINCIPAL_FINDERS = "portal.principal_finders"


def add_principal_finder(config, finder):
    """`finder(request, identity)` → further principals of a signed-in account (the clinic console's staff)."""
    config.registry.setdefault(PRINCIPAL_FINDERS, []).append(finder)


def is_staff(request, identity):
    """Whether the signed-in account is on a clinic's staff: the areas answer (`add_principal_finder`; the
    clinic console's staff area), once per request."""
    return any(STAFF in finder(request, identity) for finder in request.registry.get(PRINCIPAL_FINDERS, ()))


class SignedIn:
    """A signed-in account as the permission map asks about it: which account, and whether it is on a
    clinic's staff (asked only when a rule needs it)."""

    __slots__ = ("account_id", "_identity", "_request")

    def __init__(self, request, identity):
        self.account_id = identity.account_id
        self._identity, self._request = identity, request

    @property
    def is_staff(self):
        return is_staff(self._request, self._identity)


_ALLOWED = Allowed("permitted by the permission map")
_DENIED = Denied("not permitted by the permission map")


class SessionSecurityPolicy:
    def __init__(self, cookie):
        self.cookie = cookie
        self.devices = DeviceCookie(cookie)
        self._identity_cache = RequestLocalCache(self._load_identity)

    def _load_identity(self, request):
        token = self.cookie.read(request)
        if not token:
            return None
        return request.find_service(ISessionService).resume(token, request.remote_addr)

    def identity(self, request):
        return self._identity_cache.get_or_create(request)

    def authenticated_userid(self, request):
        identity = self.identity(request)
        return str(identity.account_id) if identity else None

    def permits(self, request, context, permission):
        identity = self.identity(request)
        caller = SignedIn(request, identity) if identity is not None else None
        return _ALLOWED if holds(caller, context, permission) else _DENIED

    def remember(self, request, account_id, **kw):
        """Start a new session (a fresh id on every sign-in) and answer its cookie, and the device cookie (a
        sign-in from a browser this account never used is mailed to its person)."""
        token, identity = request.find_service(ISessionService).start(account_id, request.user_agent,
                                                                      request.remote_addr)
        self._identity_cache.set(request, identity)
        return self.cookie.set_headers(request, token) + self.devices.signed_in(request, account_id)

    def forget(self, request, **kw):
        token = self.cookie.read(request)
        if token:
            request.find_service(ISessionService).end(token)
        self._identity_cache.set(request, None)
        return self.cookie.clear_headers(request)


class SurfaceSecurityPolicy:
    """Hands every call to the policy of the request's surface."""

    def __init__(self, policies):
        self.policies = policies

    def _policy(self, request):
        return self.policies[request.surface]

    def identity(self, request):
        return self._policy(request).identity(request)

    def authenticated_userid(self, request):
        return self._policy(request).authenticated_userid(request)

    def permits(self, request, context, permission):
        return self._policy(request).permits(request, context, permission)

    def remember(self, request, userid, **kw):
        return self._policy(request).remember(request, userid, **kw)

    def forget(self, request, **kw):
        return self._policy(request).forget(request, **kw)


def install_surface_policy(config, portal_policy):
    """Wrap the policy the API registered (clinicrecords.access, included earlier), so the API's own
    registration stays exactly as it is. Same phase as `set_security_policy` and registered after it, so it
    runs after it and before any view is derived (views capture the policy when they are derived)."""

    def wrap():
        api_policy = config.registry.queryUtility(ISecurityPolicy)
        if api_policy is None:
            raise RuntimeError("the API's security policy must be set before the portal wraps it")
        config.registry.registerUtility(
            SurfaceSecurityPolicy({"api": api_policy, "portal": portal_policy}), ISecurityPolicy)

    config.action(None, wrap, order=PHASE2_CONFIG)
