"""Two security policies in one application, one per surface.

The API keeps its bearer-key policy untouched; the portal's pages get a policy of their own whose identity
is a signed-in member's server-side session. The dispatcher asks `request.surface` (decided once per request
from host and path), so a key never opens a portal page and a portal cookie never opens an API route.
"""

from dataclasses import dataclass

from pyramid.authorization import ACLHelper, Authenticated, Everyone
from pyramid.interfaces import PHASE2_CONFIG, ISecurityPolicy
from pyramid.request import RequestLocalCache

from clinicrecords.portal.web.interfaces import ISessionService


@dataclass(frozen=True)
class MemberIdentity:
    """Who is signed in: an account, through one server-side session."""

    account_id: object
    email: str
    session_id: object
    csrf_token: str


def account_principal(account_id):
    return f"account:{account_id}"


# [finder(request, identity) → principals] the areas add, kept in the registry.
PRINCIPAL_FINDERS = "portal.principal_finders"


def add_principal_finder(config, finder):
    """`finder(request, identity)` → further principals of a signed-in account (the clinic console's staff)."""
    config.registry.setdefault(PRINCIPAL_FINDERS, []).append(finder)


def principals(request, identity):
    """Who `identity` (None: nobody signed in) is, for the ACLs: everyone, a signed-in account, and the
    principals the areas add (`add_principal_finder`; the clinic console: staff)."""
    found = {Everyone}
    if identity is not None:
        found.update((Authenticated, account_principal(identity.account_id)))
        for finder in request.registry.get(PRINCIPAL_FINDERS, ()):
            found.update(finder(request, identity))
    return found


class SessionSecurityPolicy:
    def __init__(self, cookie):
        self.cookie = cookie
        self._identity_cache = RequestLocalCache(self._load_identity)

    def _load_identity(self, request):
        token = self.cookie.read(request)
        if not token:
            return None
        return request.find_service(ISessionService).resume(token)

    def identity(self, request):
        return self._identity_cache.get_or_create(request)

    def authenticated_userid(self, request):
        identity = self.identity(request)
        return str(identity.account_id) if identity else None

    def permits(self, request, context, permission):
        return ACLHelper().permits(context, principals(request, self.identity(request)), permission)

    def remember(self, request, account_id, **kw):
        """Start a new session (a fresh id on every sign-in) and answer its cookie."""
        token, identity = request.find_service(ISessionService).start(account_id)
        self._identity_cache.set(request, identity)
        return self.cookie.set_headers(request, token)

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
