"""Idempotency-Key for writes, in one place: the `idempotency=` view option ("required" or "optional").

- The answer is stored per key owner and Idempotency-Key with a fingerprint of method, path and body, for
  RETENTION (24 hours). A retry of the same request replays it (same status and body, plus the header
  `Idempotent-Replayed: true`); the same key with another request is 409 idempotency_key_conflict.
- While the first request runs, it holds a transaction-scoped advisory lock on the key: a concurrent
  retry gets 409 idempotency_key_reused at once instead of waiting.
- A success is stored in the request's own transaction, so the effect and its record commit together.
  A 4xx is stored in a transaction of its own (the request's transaction is aborted; it wrote nothing).
  A 5xx or any unexpected error is not stored, so a retry runs again.
"""

import datetime
import hashlib
import json
import re

from pyramid.response import Response
from sqlalchemy import String, Uuid, bindparam, delete, func, select
from sqlalchemy.dialects.postgresql import insert

from clinicrecords.api.models import IdempotencyRecord
from clinicrecords.api.problems import Problem, invalid, problem_response

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
RETENTION = datetime.timedelta(hours=24)
MAX_KEY_LENGTH = 255
KEY_PATTERN = "^[!-~]+$"  # visible ASCII: a UUID, a ULID, any token a client generates
_REPLAYED_HEADERS = ("Location", "Content-Type")


def fingerprint(request):
    digest = hashlib.sha256()
    for part in (request.method.encode(), request.path.encode(), request.body or b""):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.digest()


def _record_values(owner_id, key, digest, response):
    return {
        "owner_id": owner_id, "key": key, "fingerprint": digest, "status": response.status_int,
        "headers": {name: response.headers[name] for name in _REPLAYED_HEADERS if name in response.headers},
        "body": response.body,
    }


def _replay(record, replay_field):
    body = record.body
    if replay_field and record.status < 300:
        document = json.loads(body)
        document["idempotent_replay"] = True
        body = json.dumps(document).encode()
    response = Response(status=record.status, body=body, charset=None)
    response.headers.update(record.headers)
    response.headers[REPLAYED_HEADER] = "true"
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


def idempotency_deriver(view, info):
    mode = info.options.get("idempotency")
    if not mode or info.exception_only:
        return view
    if mode not in ("required", "optional"):
        raise ValueError(f"idempotency= must be 'required' or 'optional', not {mode!r}")
    replay_field = bool(info.options.get("idempotent_replay_field"))

    def idempotent_view(context, request):
        key = _idempotency_key(request, mode == "required")
        if key is None:
            return view(context, request)
        owner_id = request.identity.owner_id
        connection = request.db.connection()
        # Two statements, not one: the lookup's snapshot must be taken after the lock is held, or a first
        # request committing in between would be missed and run twice.
        if not connection.scalar(_TRY_LOCK, {"lock_name": f"idempotency:{owner_id}:{key}"}):
            raise Problem("idempotency_key_reused", "A request with this Idempotency-Key is still running; "
                          "retry when it has finished.")
        digest = fingerprint(request)
        record = connection.execute(_STORED, {"owner_id": owner_id, "key": key}).first()
        if record is not None:
            if record.fingerprint != digest:
                raise Problem("idempotency_key_conflict", "This Idempotency-Key was used for a different "
                              "request (method, path or body).")
            if record.status >= 400:  # a stored refusal: the request log still names its code
                request.environ["clinicrecords.problem_code"] = json.loads(record.body).get("code")
            return _replay(record, replay_field)
        try:
            response = view(context, request)
        except Problem as problem:
            if 400 <= problem.status < 500:
                _store_apart(request, _record_values(owner_id, key, digest, problem_response(request, problem)))
            raise
        if response.status_int < 500:
            _upsert(connection, _record_values(owner_id, key, digest, response))
        return response

    return idempotent_view


idempotency_deriver.options = ("idempotency", "idempotent_replay_field")


# Built once: every write with an Idempotency-Key runs these (constructing them showed in POST's profile).
_TRY_LOCK = select(func.pg_try_advisory_xact_lock(func.hashtextextended(bindparam("lock_name", type_=String()), 0)))
_STORED = select(*IdempotencyRecord.__table__.columns).where(
    IdempotencyRecord.owner_id == bindparam("owner_id", type_=Uuid()),
    IdempotencyRecord.key == bindparam("key", type_=String()),
    IdempotencyRecord.created_at > func.now() - RETENTION)
_INSERT = insert(IdempotencyRecord).values(created_at=func.now())
_UPSERT = _INSERT.on_conflict_do_update(
    index_elements=[IdempotencyRecord.owner_id, IdempotencyRecord.key],
    set_={name: _INSERT.excluded[name] for name in ("fingerprint", "status", "headers", "body", "created_at")})


def _upsert(connection, values):
    """Insert, or replace an expired record with the same key."""
    connection.execute(_UPSERT, values)


def _store_apart(request, values):
    with request.registry["db.engine"].begin() as connection:
        _upsert(connection, values)


def prune(db):
    """Forget answers past their retention (run periodically)."""
    return db.execute(delete(IdempotencyRecord).where(IdempotencyRecord.created_at <= func.now() - RETENTION)
                      ).rowcount


def includeme(config):
    config.add_view_deriver(idempotency_deriver, name="idempotency")
