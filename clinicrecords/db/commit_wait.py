"""A write no synchronous standby confirms in time is answered 503, never held indefinitely nor acknowledged.

With `synchronous_standby_names` set, PostgreSQL holds each COMMIT (and each write in autocommit) until a standby
has its WAL on disk. A primary that has lost every synchronous standby, or a promoted one whose standbys have not
found it yet, holds them indefinitely, and `statement_timeout` does not apply to that wait. So a request's
COMMIT, and the autocommit writes made before its transaction (the key's last use, the rate-limit counter), are
watched: past `database.commit_wait_ms` one thread of the process sends PostgreSQL a cancel request, which ends
the wait with a warning ("canceling wait for synchronous replication ... committed locally"); the write is then
refused as the database being unavailable (503) rather than acknowledged while no standby holds it. It stays
on the primary, so a retry with the same Idempotency-Key replays its stored answer (docs/deployment.md).
"""

import threading
import time
import weakref
from contextlib import contextmanager

import psycopg
from sqlalchemy.exc import OperationalError

NOT_REPLICATED = "canceling wait for synchronous replication"

_bounds = weakref.WeakKeyDictionary()  # engine -> seconds


def bound(engine, seconds):
    """Watch the writes made on `engine`'s connections through `watched` (0: not at all)."""
    if seconds:
        _bounds[engine] = seconds


@contextmanager
def watched(engine, driver_connection):
    """Run a COMMIT or an autocommit write on `driver_connection` (psycopg's) within `engine`'s bound."""
    seconds = _bounds.get(engine)
    if seconds is None:
        yield
        return
    heard = []

    def listen(diagnostic):
        heard.append(diagnostic.message_primary or "")

    driver_connection.add_notice_handler(listen)
    token = _watch.add(driver_connection, seconds)
    try:
        yield
    finally:
        _watch.discard(token)
        driver_connection.remove_notice_handler(listen)
    if any(message.startswith(NOT_REPLICATED) for message in heard):
        raise OperationalError("COMMIT", None, psycopg.OperationalError(
            f"no synchronous standby confirmed the write within {seconds} s; it is committed on the primary only"))


class _Watch:
    """One thread per process sends the cancel requests, at the deadlines of the writes it watches."""

    def __init__(self):
        self._changed = threading.Condition(threading.Lock())
        self._watched = {}  # token -> (deadline, psycopg connection)
        self._wakes_at = None
        self._thread = None

    def add(self, connection, seconds):
        token = object()
        deadline = time.monotonic() + seconds
        with self._changed:
            self._watched[token] = (deadline, connection)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="commit-wait", daemon=True)
                self._thread.start()
            if self._wakes_at is None or deadline < self._wakes_at:
                self._changed.notify()
        return token

    def discard(self, token):
        with self._changed:
            self._watched.pop(token, None)

    def _run(self):
        with self._changed:
            while True:
                now = time.monotonic()
                for token, (deadline, connection) in list(self._watched.items()):
                    if deadline <= now:
                        del self._watched[token]
                        # Under the lock: the write's thread cannot return its connection to the pool (and so
                        # to another request's statement) until the cancel has been delivered.
                        try:
                            connection.cancel_safe(timeout=5)
                        except (psycopg.Error, OSError):
                            pass  # the connection is gone: its write fails by itself
                self._wakes_at = min((deadline for deadline, _ in self._watched.values()), default=None)
                self._changed.wait(None if self._wakes_at is None else max(0.0, self._wakes_at - time.monotonic()))


_watch = _Watch()
