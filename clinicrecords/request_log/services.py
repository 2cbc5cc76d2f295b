"""Reading the request log (one owner's requests, newest first, keyset-paged) and pruning it."""

import base64
import datetime
from dataclasses import dataclass

from sqlalchemy import delete, select, tuple_
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.access.interfaces import masked
from clinicrecords.errors import InvalidInput
from clinicrecords.request_log.interfaces import IRequestLog
from clinicrecords.request_log.models import RequestLogEntry

RETENTION = datetime.timedelta(days=7)
MAX_LIMIT = 100
PRUNE_BATCH = 5_000

_COLUMNS = (RequestLogEntry.id, RequestLogEntry.occurred_at, RequestLogEntry.key_id, RequestLogEntry.key_mode,
            RequestLogEntry.clinic_id, RequestLogEntry.method, RequestLogEntry.path, RequestLogEntry.status,
            RequestLogEntry.code, RequestLogEntry.request_id, RequestLogEntry.latency_ms)
_ORDER = (RequestLogEntry.occurred_at, RequestLogEntry.id)


@dataclass(frozen=True)
class RequestPage:
    rows: list
    next_before: str | None  # pass as `before` for the next (older) page; None on the last page


def describe(row):
    return {"time": row.occurred_at.isoformat(), "key": masked(row.key_mode, row.key_id),
            "method": row.method, "path": row.path, "status": row.status, "code": row.code,
            "request_id": row.request_id, "latency_ms": row.latency_ms,
            "clinic_id": str(row.clinic_id) if row.clinic_id else None}


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_MICROSECOND = datetime.timedelta(microseconds=1)


def _cursor(row):
    micros = (row.occurred_at - _EPOCH) // _MICROSECOND
    return base64.urlsafe_b64encode(f"{micros}.{row.id}".encode()).decode().rstrip("=")


def _position(before):
    """(occurred_at, id) from a cursor. Not signed: it only moves within the owner's own rows."""
    try:
        micros, row_id = base64.urlsafe_b64decode(before + "=" * (-len(before) % 4)).decode().split(".")
        return (_EPOCH + int(micros) * _MICROSECOND, int(row_id))
    except (ValueError, UnicodeDecodeError, OverflowError):
        raise InvalidInput("before: not a cursor of the request log; use next_before as given") from None


@implementer(IRequestLog)
class RequestLog:
    def __init__(self, db, now=None):
        self.db = db
        self.now = now

    def search(self, owner_id, key_id=None, status=None, request_id=None, before=None, limit=50):
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInput(f"limit: from 1 to {MAX_LIMIT}")
        now = self.now or clock.now()
        statement = select(*_COLUMNS).where(RequestLogEntry.owner_id == owner_id,
                                            RequestLogEntry.occurred_at >= now - RETENTION)
        if key_id is not None:
            statement = statement.where(RequestLogEntry.key_id == key_id)
        if status is not None:
            statement = statement.where(RequestLogEntry.status == status)
        if request_id is not None:
            statement = statement.where(RequestLogEntry.request_id == request_id)
        if before is not None:
            statement = statement.where(tuple_(*_ORDER) < tuple_(*_position(before)))
        rows = self.db.execute(statement.order_by(*(c.desc() for c in _ORDER)).limit(limit + 1)).all()
        more = len(rows) > limit
        rows = rows[:limit]
        return RequestPage(rows, _cursor(rows[-1]) if more else None)


def request_log_factory(context, request):
    return RequestLog(request.db)


def prune(engine, now=None, batch=PRUNE_BATCH):
    """Delete rows past the retention in batches, each its own short transaction; returns how many."""
    cutoff = (now or clock.now()) - RETENTION
    expired = select(RequestLogEntry.id).where(RequestLogEntry.occurred_at < cutoff).limit(batch)
    removed = 0
    while True:
        with engine.begin() as connection:
            count = connection.execute(
                delete(RequestLogEntry).where(RequestLogEntry.id.in_(expired))).rowcount
        removed += count
        if count < batch:
            return removed
