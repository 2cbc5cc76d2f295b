"""Entering: the one way a keyed request gets in, and the only place the key gate runs.

`enter(request, clinic_id=None)` is the gate (no browser, a valid key sent properly, from an allowed address,
within its rate limit) and, when the path names a clinic, the rest of the way in: the key's reach of that
clinic (the permission map's `reach_of_key`), decided from what the key's own statement read of it, so key and
reach cost one lookup (docs/decisions/0025-request-hot-path.md); the request's session bound to the clinic's
schema, its transaction holding the clinic's restore lock shared (503 past the reach while a restore runs:
docs/decisions/0140-one-clinic-restored-in-one-transaction.md); and the request's `ClinicScope`, which it
returns. Nothing of the clinic travels with the identity.

Traversal calls it once: at `/v1/clinics/{clinic_id}` (`Clinics`) and at the test helpers' sandbox clinic. A
keyed path that names no clinic (`/v1/me`, `/v1/listings/...`, `/v1/clinics` itself) is entered as soon as
traversal has found its context (`EnteringTraverser`), before any view or permission; traversal below /v1 reads
nothing before that but what a clinic hop reads after entering. It runs once per request
(`request.state.gated_identity`).
"""

from pyramid.interfaces import ITraverser
from pyramid.traversal import ResourceTreeTraverser
from zope.interface import implementer

from clinicrecords.access.identity import record_last_use
from clinicrecords.access.keycache import StaleKey
from clinicrecords.access.permission_map import reach_of_key
from clinicrecords.access.ratelimit import rate_limit_check
from clinicrecords.access.security_policy import KEY_POLICY
from clinicrecords.api.problems import Problem
from clinicrecords.clinics.interfaces import IClinicContext
from clinicrecords.clinics.services import ClinicScope
from clinicrecords.db.tenancy import bind_to_clinic, clinic_guard_held, guard_clinic
from clinicrecords.resources import ClinicChildren, Resource, is_public_clinic_path, needs_key, parse_uuid

# A clinic's restore takes seconds to minutes (docs/operations.md); its keys are told to come back this soon.
RESTORE_RETRY_AFTER_SECONDS = 10
_KEY_PARAMETERS = frozenset({"api_key", "apikey", "key", "access_token", "token"})


def enter(request, clinic_id=None, reach=reach_of_key):
    """The gate, and with `clinic_id` the reach (`reach(identity, found)` → (clinic, granted), else a refusal),
    the session's binding and the returned `ClinicScope`. Without `clinic_id`, None."""
    refuse_browsers(request)
    if _key_in_query(request):
        raise Problem("invalid_key", "Send the key in the Authorization header, never in the URL.")
    policy = request.registry[KEY_POLICY]
    db = None
    if clinic_id is not None:
        # Bound before the gate: nothing is read yet, and the rate-limit count travels with the BEGIN of the
        # transaction pointed at the clinic (one round trip for both). A key refused below rolls it back, having
        # read nothing of the clinic.
        db = request.db
        bind_to_clinic(db, clinic_id)
        guard_clinic(db)
    try:
        read = _checked(request, policy.read_key(request, clinic_id), db)
    except StaleKey:
        # The key came from the cache and the reach version has moved: nothing was counted yet, so the
        # statement decides as if there were no cache, in the same order.
        read = _checked(request, policy.read_key(request, clinic_id, use_cache=False), db)
    identity = request.state.gated_identity = read.identity
    if clinic_id is None:
        return None
    clinic, granted = reach(identity, read.found)
    if not clinic_guard_held(db):
        # Told only now, past the reach: a key that cannot reach the clinic learns nothing of a restore.
        raise Problem("service_unavailable", "The clinic's records are being restored. Retry shortly.",
                      headers={"Retry-After": str(RESTORE_RETRY_AFTER_SECONDS)})
    # The clinic row as the key's statement read it (in this request, or in an earlier one for a cached key),
    # not attached to the request's session: the scope only reads its columns, all loaded, and an instance
    # the key cache shares between threads must never belong to one request's session.
    return ClinicScope(identity, clinic, frozenset(granted), db)


def refuse_browsers(request):
    """The API is server-to-server (spec, Authentication 3): a browser announces itself with `Origin` on
    every cross-origin request and preflight. Refused before the key is even looked at, and no CORS header
    is ever sent, so a browser never hands the answer to a page."""
    if "HTTP_ORIGIN" in request.environ:  # the header, read without building a headers view
        raise Problem("browser_not_allowed", "This API is called from servers only, never from a browser.")


def _key_in_query(request):
    if not request.environ.get("QUERY_STRING"):
        return False  # no parameters: the request's MultiDict is not built for nothing
    return any(name.lower() in _KEY_PARAMETERS or value.startswith("ehr_")
               for name, value in request.GET.items())


def _checked(request, read, db):
    if read is None:
        raise Problem("invalid_key")
    identity = read.identity
    if not identity.ip_allowed(request.remote_addr):
        raise Problem("ip_not_allowed")
    rate_limit_check(request, identity, db)
    record_last_use(request, identity)
    return read


@implementer(ITraverser)
class EnteringTraverser:
    """Pyramid's traversal, then entry where it stopped: a keyed path no clinic hop entered (it names no clinic,
    or traversal stopped before the clinic: `/v1/clinics/not-a-uuid`) is entered here, before any view, so no
    key gets another answer there than elsewhere. Public paths (the OpenAPI document, the reference) and the
    portal are not keyed. A traverser rather than a `ContextFound` subscriber: with no subscriber at all, the
    router notifies none of its four events on any request (docs/decisions/0168-no-router-events.md)."""

    def __init__(self, root):
        self._traverse = ResourceTreeTraverser(root)

    def __call__(self, request):
        found = self._traverse(request)
        if request.state.gated_identity is None and needs_key(found["context"]):
            enter(request)
        return found


class Clinics(Resource):
    """/v1/clinics: the clinic the path names is entered here, the one place a request's tenant is chosen."""

    def __getitem__(self, name):
        clinic_id = parse_uuid(name)
        if is_public_clinic_path(self.request):
            # A public document under every clinic id alike (the FHIR base's metadata): no key, no clinic read.
            return PublicClinicResource(self, name)
        return ClinicResource(self, name, enter(self.request, clinic_id))


@implementer(IClinicContext)
class ClinicResource(ClinicChildren, Resource):
    """/v1/clinics/{clinic_id}: holds the request's clinic scope; its collections are the contexts'."""

    def __init__(self, parent, name, scope):
        super().__init__(parent, name)
        self.scope = scope


class PublicClinicResource(ClinicChildren, Resource):
    """/v1/clinics/{clinic_id} on the way to a public path (`config.add_public_clinic_path`): nothing of the
    clinic is known, nor whether it exists; only the public paths' views answer (they need no permission)."""

    public_entry = True


# /v1/clinics/{clinic_id}: the item of the clinics collection (documentation and route discovery).
Clinics.item_resource = ClinicResource
Clinics.item_parameter = "clinic_id"
