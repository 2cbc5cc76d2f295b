"""Pyramid 2 security policy: the bearer key is the identity; `permission_map.refusal` decides every
permission.

The key is read once per request, before the request's transaction, by the entry (clinicrecords.access.entry:
`read_key`, with the clinic the path names, so the same statement reads the key's reach of it); the identity it
read is the request's from then on. Only a request no entry let in (a refusal the request log still
attributes) has its key read here."""

from pyramid.security import Allowed, Denied

from clinicrecords.access.identity import read_key
from clinicrecords.access.keycache import KeyCache
from clinicrecords.access.keys import bearer_token, parse_key
from clinicrecords.access.permission_map import refusal
from clinicrecords.access.permissions import refusal_name
from clinicrecords.access.ratelimit import current_decision
from clinicrecords.api.request_log import Caller
from clinicrecords.api.state import UNREAD
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clock import now as clock_now
from clinicrecords.db import ENGINE, autocommit_session


class Refusal(Denied):
    """A denial naming the permission the key lacks (the forbidden view's `detail`)."""

    def __new__(cls, permission):
        refused = Denied.__new__(cls, "the key lacks %s", permission)
        refused.permission = refusal_name(permission)
        return refused


_ALLOWED = Allowed("permitted by the permission map")

# The registered policy, which the entry asks to read the calling key.
KEY_POLICY = "access.key_policy"


class KeySecurityPolicy:
    def __init__(self, pepper, key_cache=None):
        self.pepper = pepper
        self.key_cache = key_cache if key_cache is not None else KeyCache()

    def read_key(self, request, clinic_id=None, use_cache=True):
        """The calling key as a `KeyRead` (or None for every kind of bad key), with what it found of the clinic
        `clinic_id` names: from the key cache, else (or with `use_cache` false, which drops the cached entry) by
        the statement. Its identity is the request's identity from then on."""
        read = self._read(request, clinic_id, use_cache)
        request.state.key_identity = read.identity if read is not None else None
        return read

    def _read(self, request, clinic_id, use_cache):
        parsed = parse_key(bearer_token(request.environ.get("HTTP_AUTHORIZATION")))
        if parsed is None:
            return None
        now = clock_now()
        if not use_cache:
            self.key_cache.drop(parsed.key_id, clinic_id)
        # A request retried by pyramid_retry was counted already, so its version would not be checked again.
        elif current_decision(request) is None:
            cached = self.key_cache.usable(self.pepper, parsed, clinic_id, now, request.remote_addr)
            if cached is not None:
                return cached
        # Before the request's transaction, on a connection released at once (clinicrecords.db).
        with autocommit_session(request.registry[ENGINE]) as db:
            return read_key(db, self.pepper, parsed, clinic_id, now, cache=self.key_cache)

    def identity(self, request):
        if request.state.key_identity is UNREAD:
            self.read_key(request)
        return request.state.key_identity

    def known_identity(self, request):
        """The identity if this request read one already, else None: never reads the key."""
        identity = request.state.key_identity
        return None if identity is UNREAD else identity

    def caller(self, request, read_key=False):
        """Who made this request, for the request log: None unless a valid key was read, or with `read_key`
        (a refusal, maybe made before the gate read the key: a browser's request) is sent."""
        identity = self.known_identity(request)
        if identity is None and read_key:
            identity = self._identity_for_the_log(request)
        if identity is None:
            return None
        scope = clinic_scope(getattr(request, "context", None))
        return Caller(identity.owner_id, identity.key_id, identity.mode, scope.clinic_id if scope is not None else None)

    def _identity_for_the_log(self, request):
        if not request.headers.get("Authorization"):
            return None
        try:
            return self.identity(request)
        except Exception:  # the database is unreachable (a 503): the log line is still written, unattributed
            return None

    def authenticated_userid(self, request):
        identity = self.identity(request)
        return identity.key_id if identity else None

    def permits(self, request, context, permission):
        identity = self.identity(request)
        if identity is None:
            return Denied("no valid key")
        missing = refusal(request.registry, identity, context, request.method, permission)
        return _ALLOWED if missing is None else Refusal(missing)

    def remember(self, request, userid, **kw):
        return []

    def forget(self, request, **kw):
        return []
