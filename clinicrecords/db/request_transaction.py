"""A request's session joined to pyramid_tm's transaction, and statements sent together with its COMMIT.

zope.sqlalchemy's `register` adds seven event listeners to every new session, and a request builds one
session: here two listeners, registered once on the class, join a small data manager when the session begins a
transaction or is given an object to write. pyramid_tm still decides: commit unless the request failed. The
session commits in `tpc_vote`, sorted last, so a failed COMMIT aborts the whole transaction and no after-
commit hook (task enqueueing) runs; an abort rolls back. A session that began a transaction always commits it
(zope.sqlalchemy rolled back one it had not seen write, which cost the audit trail a `mark_changed`): COMMIT
and ROLLBACK cost the same round trip, and a write is never lost for want of being noticed.

`send_with_commit` queues a statement to go in the same network message as the COMMIT (one round trip
instead of two): the audit row of a request is written this way. If it fails, the COMMIT is not run and
the transaction aborts with everything it wrote. Its `committed` callback is told once that COMMIT has
succeeded: the session knows it first, without an after-commit hook (after which `transaction` aborts every
resource again, a third close of the session).
"""

import psycopg
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from clinicrecords.db import commit_wait, joined
from clinicrecords.db.reconnect import as_sqlalchemy_error
from clinicrecords.db.literals import bind

_TRANSACTION_MANAGER = "clinicrecords.transaction_manager"
_JOINED = "clinicrecords.joined"
_WITH_COMMIT = "clinicrecords.with_commit"


class RequestSession(Session):
    """The session of one request (`request.db`)."""


def for_request(session_factory, transaction_manager):
    session = session_factory()
    session.info[_TRANSACTION_MANAGER] = transaction_manager
    return session


def send_with_commit(session, query, params, committed=None):
    """Run `query` (text with %(name)s placeholders, or psycopg.sql), its `params` bound client-side (db/literals.py),
    in the same message as this session's COMMIT; `committed()` is called once that COMMIT has succeeded."""
    session.info.setdefault(_WITH_COMMIT, []).append((query, params, committed))


@event.listens_for(RequestSession, "after_begin")
def _join_on_begin(session, transaction, connection):
    _join(session)


@event.listens_for(RequestSession, "after_attach")
def _join_on_attach(session, instance):
    # An object added before any statement ran has begun no transaction yet: it must still be flushed and
    # committed with the request's transaction.
    _join(session)


def _join(session):
    manager = session.info.get(_TRANSACTION_MANAGER)
    if manager is not None and _JOINED not in session.info:
        session.info[_JOINED] = SessionJoin(session, manager)


class SessionJoin:
    """The data manager `transaction` drives for one session (one-phase commit, voted last)."""

    def __init__(self, session, transaction_manager):
        self.session = session
        self.transaction_manager = transaction_manager
        transaction_manager.get().join(self)

    def tpc_begin(self, txn):
        self.session.flush()

    def commit(self, txn):
        pass

    def tpc_vote(self, txn):
        statements = self.session.info.pop(_WITH_COMMIT, None)
        if not statements and not self.session.in_transaction():
            self.session.commit()  # nothing began: no connection to take for it
            return
        connection = self.session.connection()
        with commit_wait.watched(connection.engine, connection.connection.driver_connection):
            if statements:
                _commit_with(self.session, statements)
                for _, _, committed in statements:
                    if committed is not None:
                        committed()
            else:
                self.session.commit()

    def tpc_finish(self, txn):
        self._close()

    def tpc_abort(self, txn):
        self._close()

    def abort(self, txn):
        self._close()

    def sortKey(self):
        return f"~clinicrecords.db:{id(self)}"

    def should_retry(self, error):
        """pyramid_tm asks: a serialization failure or deadlock (SQLSTATE class 40) is worth another attempt
        (pyramid_retry's `retry.attempts`), as zope.sqlalchemy answered."""
        return is_transaction_rollback(error)

    def _close(self):
        self.session.info.pop(_JOINED, None)
        self.session.info.pop(_WITH_COMMIT, None)
        self.session.close()  # rolls back whatever was not committed


def is_transaction_rollback(error):
    orig = getattr(error, "orig", None) if isinstance(error, DBAPIError) else None
    return isinstance(orig, psycopg.errors.OperationalError) and (orig.sqlstate or "").startswith("40")


def _commit_with(session, statements):
    connection = session.connection()
    driver = connection.connection.driver_connection
    texts = [bind(driver, query, params) for query, params, _ in statements]
    if not joined.is_joined(connection):  # the test suite's savepoint "commits" by a RELEASE the session sends
        texts.append("COMMIT")
    # Without parameters psycopg uses the simple query protocol, which runs several statements from one
    # message, and reads no placeholders into the bound values.
    message = "; ".join(texts)
    try:
        driver.execute(message)
    except connection.dialect.loaded_dbapi.Error as exc:
        raise as_sqlalchemy_error(connection, driver, message, None, exc) from exc
    session.commit()  # after the COMMIT above the driver is idle: SQLAlchemy's commit sends nothing
