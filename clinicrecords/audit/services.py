"""Building audit entries from a request and its answer, appending them, and listing them for operators.

An entry names who (key id, its workspace or clinic), what (method, route template, record ids), the outcome
(HTTP status), the request id and the time: never a record's content.
"""

import json
import logging
import re
import uuid

from psycopg import sql
from psycopg.types.json import Jsonb
from pyramid.location import lineage
from sqlalchemy import String, cast, insert, select
from sqlalchemy.dialects.postgresql import ARRAY

from clinicrecords.api.representations import document_ids, shown_ids, touched_ids
from clinicrecords.api.request_log import route_template
from clinicrecords.audit.models import AuditEntry
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clock import now as clock_now
from clinicrecords.db.commit_or_apart import Apart
from clinicrecords.db.tenancy import translate_map

log = logging.getLogger(__name__)

MAX_RECORD_IDS = 1000


def audited_scope(request):
    """The clinic scope when the request's context lies in an audited collection (`audited = True`) of a
    clinic in the key's reach, else None. A request whose traversal failed has no context: nothing of it was read."""
    context = getattr(request, "context", None)
    scope = clinic_scope(context)
    if scope is None:
        return None
    return scope if any(getattr(node, "audited", False) for node in lineage(context)) else None


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _uuid_or_none(value):
    """The canonical text of a uuid, or None. Ids the renderer showed are already canonical (a page shows up
    to 100): they are recognised without building a UUID."""
    if isinstance(value, str) and _CANONICAL_UUID.fullmatch(value):
        return value
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return None


def _answer_ids(body, method):
    """Ids of the records an answer names: a plain object or page, or a FHIR resource or Bundle."""
    if not isinstance(body, dict):
        return []
    items = [body]
    if isinstance(body.get("data"), list):
        items = body["data"]
    elif isinstance(body.get("data"), dict):
        items = [body["data"]]
    elif isinstance(body.get("entry"), list):
        items = [entry.get("resource") for entry in body["entry"] if isinstance(entry, dict)]
    return document_ids([item for item in items if isinstance(item, dict)], method)


def record_ids(request, clinic_id, response, status):
    """The path's ids, and for a success (`status`, the answer's) the records its answer names and those the
    view noted as touched: a write names the patient and every record it touched
    (`api.representations.WRITTEN_ID_FIELDS`)."""
    found = []
    clinic = str(clinic_id)
    for segment in request.environ.get("PATH_INFO", "").split("/"):
        if len(segment) >= 32 and segment != clinic:
            value = _uuid_or_none(segment)
            if value and value != clinic:  # the clinic's id written another way (upper case, no hyphens)
                found.append(value)
    if response is not None and status < 400:
        shown = shown_ids(request)
        # An answer not built by render_one/render_page (an idempotent replay, ...): its ids are read back from
        # its body, when that is JSON.
        if shown is None and "json" in (response.content_type or ""):
            try:
                shown = _answer_ids(json.loads(response.body), request.method)
            except ValueError:
                shown = []
        found.extend(v for v in map(_uuid_or_none, shown or ()) if v)
        found.extend(v for v in map(_uuid_or_none, touched_ids(request)) if v)
    return list(dict.fromkeys(found))


def entries_values(request, scope, status, response=None):
    """The request's entries: one, or one per MAX_RECORD_IDS ids where an answer names more (an export file
    holding thousands of patients), each carrying the request's id so they read as one request."""
    identity = scope.identity
    common = {
        "request_id": request.request_id,
        "key_id": identity.key_id,
        "owner_kind": "clinic" if identity.clinic_id else "workspace",
        "owner_id": identity.clinic_id or identity.workspace_id,
        "method": request.method[:10],
        "route": route_template(request.environ.get("PATH_INFO", ""))[:300],
        "status": status,
    }
    ids = record_ids(request, scope.clinic_id, response, status)
    chunks = [ids[start:start + MAX_RECORD_IDS] for start in range(0, len(ids), MAX_RECORD_IDS)] or [[]]
    return [{"id": uuid.uuid4(), **common, "record_ids": chunk} for chunk in chunks]


# Built once; executed with a parameter dict (one INSERT, no ORM unit of work, compiled once per schema map).
_INSERT = insert(AuditEntry.__table__)


_COLUMNS = [column.name for column in AuditEntry.__table__.columns]


# As text, its values bound into it (db/literals.py). No schema in it: the request's transaction is pointed at
# its clinic (db/tenancy.py), so the text is the same for every clinic and its placeholders are parsed once,
# not once per clinic.
_INSERT_INTO = sql.SQL("INSERT INTO {table} ({columns}) VALUES ({values})").format(
    table=sql.Identifier(AuditEntry.__tablename__), columns=sql.SQL(", ").join(map(sql.Identifier, _COLUMNS)),
    values=sql.SQL(", ").join(map(sql.Placeholder, _COLUMNS))).as_string()


def entry_with_commit(values):
    """(query, params): the entry in the request's transaction, sent in one message with its COMMIT. That
    transaction is pointed at the scope's clinic (bound when the request entered it): the row lands there, and
    where no clinic was bound the INSERT fails and the entry is written apart instead."""
    params = {"at": clock_now(), **values, "record_ids": Jsonb(values["record_ids"])}
    return _INSERT_INTO, params


def entries_apart(clinic_id, values):
    """The entries (`entries_values`) in a short transaction of their own: for reads and refusals whose
    transaction did not commit."""
    return Apart(_INSERT, values if len(values) > 1 else values[0], translate_map(clinic_id))


def describe(entry):
    return {
        "id": str(entry.id),
        "at": entry.at.isoformat(),
        "request_id": entry.request_id,
        "key_id": entry.key_id,
        "owner": {"kind": entry.owner_kind, "id": str(entry.owner_id)} if entry.owner_id else None,
        "method": entry.method,
        "route": entry.route,
        "record_ids": entry.record_ids,
        "status": entry.status,
    }


def list_entries(db, since=None, key_id=None, limit=1000):
    """Entries of the clinic `db` is bound to, oldest first."""
    query = select(AuditEntry).order_by(AuditEntry.at, AuditEntry.id).limit(limit)
    if since is not None:
        query = query.where(AuditEntry.at >= since)
    if key_id is not None:
        query = query.where(AuditEntry.key_id == key_id)
    return db.scalars(query).all()


def entries_naming(db, record_ids, limit):
    """Entries of the clinic `db` is bound to that name any of `record_ids` (text), newest first."""
    return db.scalars(select(AuditEntry).where(AuditEntry.record_ids.op("?|")(cast(list(record_ids), ARRAY(String))))
                      .order_by(AuditEntry.at.desc(), AuditEntry.id).limit(limit)).all()
