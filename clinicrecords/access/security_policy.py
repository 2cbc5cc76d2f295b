"""Pyramid 2 security policy: the bearer key is the identity; `permission_map.refusal` decides every
permission.

The identity is read once per request, before the request's transaction. For a request into a clinic the
traversal names the clinic (`identify(request, clinic_id)`, from `Clinics.__getitem__` through the key
gate), and the same statement reads the key's reach of it (clinicrecords.access.identity)."""

from pyramid.request import RequestLocalCache
from pyramid.security import Allowed, Denied

from clinicrecords.access.identity import authenticate
from clinicrecords.access.permission_map import refusal
from clinicrecords.access.permissions import refusal_name
from clinicrecords.api.request_log import Caller
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.db import autocommit_session


class Refusal(Denied):
    """A denial naming the permission the key lacks (the forbidden view's `detail`)."""

    def __new__(cls, permission):
        refused = Denied.__new__(cls, "the key lacks %s", permission)
        refused.permission = refusal_name(permission)
        return refused


_ALLOWED = Allowed("permitted by the permission map")


class KeySecurityPolicy:
    def __init__(self, pepper):
        self.pepper = pepper
        self._identity_cache = RequestLocalCache(self._load_identity)

    def _load_identity(self, request, clinic_id=None):
        # Before the request's transaction, on a connection released at once (clinicrecords.db).
        with autocommit_session(request.registry["db.engine"]) as db:
            return authenticate(db, self.pepper, request.headers.get("Authorization"), clinic_id=clinic_id)

    def identity(self, request):
        return self._identity_cache.get_or_create(request)

    def identify(self, request, clinic_id=None):
        """The identity, read with the key's reach of `clinic_id` in one statement if not read yet."""
        return self._identity_cache.get_or_create(request, lambda r: self._load_identity(r, clinic_id))

    def known_identity(self, request):
        """The identity if this request read one already, else None: never reads the key."""
        return self._identity_cache.get(request, None)

    def caller(self, request):
        """Who made this request, for the request log: None unless a valid key was read."""
        identity = self.known_identity(request)
        if identity is None:
            return None
        scope = clinic_scope(getattr(request, "context", None))
        return Caller(identity.owner_id, identity.key_id, identity.mode,
                      str(scope.clinic_id) if scope is not None else None)

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
