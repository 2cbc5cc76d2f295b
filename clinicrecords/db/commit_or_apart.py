"""What a request writes about its own outcome: with its COMMIT, else apart once its transaction has ended.

Two records must land whatever becomes of a request: the answer an Idempotency-Key replays
(`api/idempotency.py`) and the audit entry (`audit/`). Each is written in one of two ways, decided here:

- `with_commit(request, query, params, else_apart=...)`: in the message that carries the request's COMMIT
  (`request_transaction.send_with_commit`), so the record and everything the request wrote commit together,
  or neither does. `else_apart(outcome)` names what to write instead when that COMMIT never happens (an
  error answer after all, or a COMMIT that failed); without it, nothing is.
- `apart(request, write)`: for what a request owes when its transaction will not commit (a refusal: it is
  rolled back and wrote nothing), and for what it owes whatever becomes of that transaction (a key's last
  use). Written once that transaction has ended; writing it meanwhile would hold a second pooled connection.

The tween, outside pyramid_tm, writes everything a request owes apart in one short transaction of its own.
If that fails (the database is down), it is logged and the answer stands: the request log line remains.
"""

import logging
from typing import Callable, NamedTuple

from clinicrecords.db import ENGINE, commit_wait
from clinicrecords.db.request_transaction import send_with_commit

log = logging.getLogger(__name__)


class Outcome(NamedTuple):
    """What became of the request, as the tween outside its transaction sees it."""

    response: object  # the answer, or None when an exception left the transaction (its COMMIT failed)
    exception: BaseException | None


class Apart(NamedTuple):
    """A write for after the request's transaction: a statement, its parameters and, for a clinic's table,
    the schema map that puts it in the clinic's schema."""

    statement: object
    params: dict | list
    schema_translate_map: dict | None = None


class _Owed:
    __slots__ = ("write", "committed")

    def __init__(self, write):
        self.write = write
        self.committed = False

    def sent_with_commit(self):
        self.committed = True


def with_commit(request, query, params, else_apart: Callable[[Outcome], Apart | None] | None = None):
    """`query` (text with %(name)s placeholders) sent with the request's COMMIT; `else_apart(outcome)` written
    apart instead when the transaction ends without committing."""
    if else_apart is None:
        send_with_commit(request.db, query, params)
        return
    owed = _Owed(else_apart)
    request.state.owed_apart.append(owed)
    send_with_commit(request.db, query, params, owed.sent_with_commit)


def apart(request, write: Callable[[Outcome], Apart | None]):
    """`write(outcome)` → the `Apart` to write once the request's transaction has ended (None: nothing)."""
    request.state.owed_apart.append(_Owed(write))


def _write_apart(engine, request, outcome):
    writes = [write for write in (owed.write(outcome) for owed in request.state.owed_apart if not owed.committed)
              if write is not None]
    if not writes:
        return
    try:
        with engine.connect() as connection, \
                commit_wait.watched(engine, connection.connection.driver_connection), connection.begin():
            for write in writes:
                options = {"schema_translate_map": write.schema_translate_map} if write.schema_translate_map else {}
                connection.execute(write.statement, write.params, execution_options=options)
    except Exception:
        log.exception("what request %s owed apart was not written", request.request_id)


def commit_or_apart_tween_factory(handler, registry):
    """Outside pyramid_tm: once the request's transaction has ended, write what it owes apart."""
    engine = registry[ENGINE]

    def commit_or_apart(request):
        # Each attempt pyramid_retry makes is a new request: a retried attempt owes its own.
        try:
            response = handler(request)
        except Exception as exc:
            _write_apart(engine, request, Outcome(None, exc))
            raise
        _write_apart(engine, request, Outcome(response, None))
        return response

    return commit_or_apart
