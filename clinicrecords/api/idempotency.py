"""Idempotency-Key for writes, in one place: the `idempotency=` view option ("required" or "optional").

- The answer is stored per key owner and Idempotency-Key with a fingerprint of method, path and body, for
  RETENTION (24 hours). A retry of the same request replays it (same status and body byte for byte, plus
  the header `Idempotent-Replayed: true`); the same key with another request is 409
  idempotency_key_conflict. A JSON body is compared as parsed, not as sent (`canonical_body`).
- While the first request runs, it holds a transaction-scoped advisory lock on the key: a concurrent
  retry gets 409 idempotency_key_reused at once instead of waiting. The lock and the lookup of the stored
  answer are one round trip (the database function `control.idempotency_claim`, migration c23).
- A success is stored in the request's own transaction, so the effect and its record commit together: the
  record's upsert travels in the message that carries the COMMIT (`db.commit_or_apart.with_commit`).
  A 4xx is stored apart, once the request's transaction has ended (it was aborted and wrote nothing:
  `db.commit_or_apart.apart`). It never replaces a stored answer still within retention: a retry that ran in
  between keeps its own.
  A 5xx or any unexpected error is not stored, so a retry runs again.
- The record names the clinic the request entered (`clinic_id`, from the session traversal bound to it), so
  restoring a clinic forgets the answers stored since its point in time for writes to it, whoever sent them.
"""

import datetime
import json
import re

from pyramid.response import Response
from sqlalchemy import (Boolean, LargeBinary, SmallInteger, String, Uuid, bindparam, column, delete, func, literal,
                        select)
from psycopg.types.json import Jsonb
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import JSONB, insert

from clinicrecords.api import canonical
from clinicrecords.api.models import IdempotencyRecord
from clinicrecords.api.problems import Problem, invalid, problem_response
from clinicrecords.api.render import set_headers
from clinicrecords.db.commit_or_apart import Apart, apart, with_commit
from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.db.tenancy import bound_clinic_id

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
RETENTION = datetime.timedelta(hours=24)
MAX_KEY_LENGTH = 255
KEY_PATTERN = "^[!-~]+$"  # visible ASCII: a UUID, a ULID, any token a client generates
_REPLAYED_HEADERS = ("Location", "Content-Location", "Content-Type")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def canonical_body(request):
    """The body as one text per meaning: members sorted, no whitespace, numbers by value. A body that is not
    a JSON object the API would read is compared as its bytes."""
    if not request.body:
        return b""
    try:
        # The parse validation reads too (reified): a large import is parsed once.
        return b"json:" + canonical.canonical_json(request.json_object).encode()
    except (Problem, RecursionError):
        return b"bytes:" + request.body


def _target(request):
    """The path, with the query when there is one: a kick-off (GET .../$export?_type=...) is asked by it."""
    return request.path + ("?" + request.query_string if request.query_string else "")


def fingerprint(request):
    return canonical.digest(request.method.encode(), _target(request).encode(), canonical_body(request))


def _same_request(record, digest, request):
    # Records stored before bodies were compared as parsed hold a digest of the raw bytes: still a match
    # for a byte-identical retry within their retention.
    return record.fingerprint in (digest, canonical.digest(request.method.encode(), _target(request).encode(),
                                                             request.body or b""))


def _record_values(request, owner_id, key, digest, response):
    return {
        "owner_id": owner_id, "key": key, "fingerprint": digest, "status": response.status_int,
        "headers": {name: response.headers[name] for name in _REPLAYED_HEADERS if name in response.headers},
        "body": response.body,
        # The clinic the request entered: its session was bound to it by traversal, nothing is read for it.
        "clinic_id": bound_clinic_id(request.db),
    }


def _replay(record, replay_field):
    body = record.body
    if replay_field and record.status < 300 and body.endswith(b"}") and body != b"{}":
        # Added to the stored text, never re-encoded, so every byte of the first answer is kept.
        body = body[:-1] + b',"idempotent_replay":true}'
    response = Response(status=record.status, body=body, charset=None)
    set_headers(response, {**record.headers, REPLAYED_HEADER: "true"})
    return response


def _idempotency_key(request, required):
    key = request.headers.get(HEADER)
    if key is None:
        if required:
            raise invalid([{"pointer": "", "location": "header", "message": f"The {HEADER} header is required "
                            "for this request."}], f"Send an {HEADER} header (for example a UUID).")
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not re.fullmatch(KEY_PATTERN, key):
        raise invalid([{"pointer": "", "location": "header",
                        "message": f"{HEADER} must be 1 to {MAX_KEY_LENGTH} visible ASCII characters."}])
    return key


def _claim(request, owner_id, key, digest, replay_field):
    """Hold the key for this request's transaction; the stored answer to replay, or None to run the request.
    Refuses a key held by a request still running, or used for another request."""
    claim = _CLAIM.first(request.db, owner_id=owner_id, key=key)
    if not claim.claimed:
        raise Problem("idempotency_key_reused", "A request with this Idempotency-Key is still running; "
                      "retry when it has finished.")
    if claim.status is None:
        return None
    if not _same_request(claim, digest, request):
        raise Problem("idempotency_key_conflict", "This Idempotency-Key was used for a different "
                      "request (method, path or body).")
    replayed = _replay(claim, replay_field)
    if claim.status >= 400:  # a stored refusal: the request log still names its code
        request.state.problem_code = json.loads(claim.body).get("code")
    return replayed


def idempotency_deriver(view, info):
    mode = info.options.get("idempotency")
    if not mode or info.exception_only:
        return view
    if mode not in ("required", "optional"):
        raise ValueError(f"idempotency= must be 'required' or 'optional', not {mode!r}")
    replay_field = bool(info.options.get("idempotent_replay_field"))
    guard = info.options.get("idempotency_guard")

    def idempotent_view(context, request):
        key = _idempotency_key(request, mode == "required")
        if key is None:
            return view(context, request)
        if guard is not None:
            refused = guard(context, request)
            if refused is not None:
                return refused
        owner_id = request.identity.owner_id
        digest = fingerprint(request)
        replayed = _claim(request, owner_id, key, digest, replay_field)
        if replayed is not None:
            return replayed
        try:
            response = view(context, request)
        except Problem as problem:
            if 400 <= problem.status < 500:
                refusal = problem_response(request, problem)
                _record_apart(request, _record_values(request, owner_id, key, digest, refusal))
            raise
        if response.status_int < 500:
            _record_with_commit(request, _record_values(request, owner_id, key, digest, response))
        return response

    return idempotent_view


idempotency_deriver.options = ("idempotency", "idempotent_replay_field", "idempotency_guard")


def replay_for_missing_record(request):
    """A write whose path names a record that no longer exists (a DELETE retried after its answer was lost)
    never reaches its view, so the view's deriver cannot replay it: the not-found view asks here first. The
    same owner's stored answer for exactly this request (method, path, body) is replayed; the key used for
    another request is 409 idempotency_key_conflict, and held by a request still running 409
    idempotency_key_reused. None when there is nothing to replay (the 404 stands and is not stored).
    Only asked where the replay guard allows it (a clinic the key still reaches); a malformed key is left to
    the 404."""
    key = request.headers.get(HEADER)
    if request.method not in WRITE_METHODS or key is None or request.identity is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not re.fullmatch(KEY_PATTERN, key):
        return None
    return _claim(request, request.identity.owner_id, key, fingerprint(request), replay_field=False)


# Built once: every write with an Idempotency-Key runs these (constructing them showed in POST's profile).
# One statement, not a lock then a SELECT: the function's lookup is a statement of its own inside it, so its
# snapshot is taken after the lock is held and a first request committing in between is not missed.
_CLAIM = Prebuilt(select(*func.control.idempotency_claim(
    bindparam("owner_id", type_=Uuid()), bindparam("key", type_=String()), literal(RETENTION)).table_valued(
    column("claimed", Boolean()), column("fingerprint", LargeBinary()), column("status", SmallInteger()),
    column("headers", JSONB()), column("body", LargeBinary())).columns), tenant=False)
_INSERT = insert(IdempotencyRecord).values(created_at=func.now())
_REPLACED = {name: _INSERT.excluded[name]
             for name in ("fingerprint", "status", "headers", "body", "created_at", "clinic_id")}
_UPSERT = _INSERT.on_conflict_do_update(index_elements=[IdempotencyRecord.owner_id, IdempotencyRecord.key],
                                        set_=_REPLACED)
_INSERT_UNLESS_KEPT = _INSERT.on_conflict_do_update(
    index_elements=[IdempotencyRecord.owner_id, IdempotencyRecord.key], set_=_REPLACED,
    where=IdempotencyRecord.created_at <= func.now() - RETENTION)


_UPSERT_TEXT = _UPSERT.compile(dialect=postgresql.psycopg.dialect(), column_keys=[
    "owner_id", "key", "fingerprint", "status", "headers", "body", "clinic_id"]).string


def _record_with_commit(request, values):
    """Insert, or replace an expired record with the same key, in the message that carries the request's
    COMMIT (one round trip less): the answer is stored with everything the request wrote, or neither is."""
    with_commit(request, _UPSERT_TEXT, {**values, "headers": Jsonb(values["headers"])})


def _record_apart(request, values):
    """A refusal, once the request's transaction has ended; never over an answer still within retention."""
    apart(request, lambda outcome: Apart(_INSERT_UNLESS_KEPT, values))


def prune(db):
    """Forget answers past their retention (run periodically)."""
    return db.execute(delete(IdempotencyRecord).where(IdempotencyRecord.created_at <= func.now() - RETENTION)
                      ).rowcount


def includeme(config):
    config.add_view_deriver(idempotency_deriver, name="idempotency")
