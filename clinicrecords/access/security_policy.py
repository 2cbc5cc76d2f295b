"""Pyramid 2 security policy: the bearer key is the identity; the permissions granted on the clinic (or the
key's own scopes outside a clinic) become principals, and the resources' ACLs decide."""

import uuid

from pyramid.authorization import ACLHelper, Authenticated, Everyone
from pyramid.request import RequestLocalCache
from pyramid.security import Denied
from pyramid.traversal import find_interface

from clinicrecords.access.identity import authenticate
from clinicrecords.db import autocommit_session


def permission_principal(permission):
    return f"permission:{permission}"


class KeySecurityPolicy:
    def __init__(self, pepper):
        self.pepper = pepper
        self._identity_cache = RequestLocalCache(self._load_identity)

    def _load_identity(self, request):
        # Before the request's transaction, on a connection released at once (clinicrecords.db).
        with autocommit_session(request.registry["db.engine"]) as db:
            identity = authenticate(db, self.pepper, request.headers.get("Authorization"),
                                    clinic_id=clinic_in_path(request))
        if identity is not None:
            request.environ["clinicrecords.key_id"] = identity.key_id
            request.environ["clinicrecords.key_mode"] = identity.mode
            # The audit trail names the key's owner without loading the key again after the transaction.
            request.environ["clinicrecords.key_owner"] = (
                ("clinic", identity.clinic_id) if identity.clinic_id else ("workspace", identity.workspace_id))
        return identity

    def identity(self, request):
        return self._identity_cache.get_or_create(request)

    def authenticated_userid(self, request):
        identity = self.identity(request)
        return identity.key_id if identity else None

    def permits(self, request, context, permission):
        identity = self.identity(request)
        if identity is None:
            return Denied("no valid key")
        principals = {Everyone, Authenticated}
        principals.update(permission_principal(p) for p in granted_permissions(context, identity))
        return ACLHelper().permits(context, principals, permission)

    def remember(self, request, userid, **kw):
        return []

    def forget(self, request, **kw):
        return []


def clinic_in_path(request):
    """The clinic a `/v1/clinics/{clinic_id}/...` path names (a uuid), else None: authentication reads the
    key's reach of it in the same statement. Traversal still decides, from this prefetched row."""
    segments = request.environ.get("PATH_INFO", "").split("/", 4)
    if len(segments) < 4 or segments[1] != "v1" or segments[2] != "clinics":
        return None
    try:
        return uuid.UUID(segments[3])
    except ValueError:
        return None


def granted_permissions(context, identity):
    from clinicrecords.clinics.resources import ClinicResource

    clinic = find_interface(context, ClinicResource)
    return clinic.granted if clinic is not None else identity.scopes
