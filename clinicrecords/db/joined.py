"""Test hook: every connection of the application's engines joins one outer transaction the test rolls back.

The test suite arms it before building any application (`arm()`); `includeme` then makes each engine it
builds `follow` the hook. While a test has `join`ed a connection, `engine.connect()` (and so `engine.begin()`,
every Session, `autocommit_session`) hands out a `JoinedConnection` on that connection's database connection,
whose transaction is a savepoint; `engine.raw_connection()` hands out the same database connection with each
statement in a savepoint. Outside a join (or never armed: production), the engine is untouched.

Each `JoinedConnection` begins with `RESET ALL`, so the search_path a session set for its clinic in one
savepoint never reaches another session. A connection in AUTOCOMMIT keeps what it wrote when it closes, as a
real autocommit connection does.
"""

import itertools
import threading

from psycopg import pq
from sqlalchemy.engine import Connection

# What now() answers inside a joined transaction, where the test database's now() reads it.
CLOCK_SETTING = "clinicrecords.transaction_start"

_state = {"armed": False, "outer": None, "thread": None}
_names = itertools.count(1)


def arm():
    _state["armed"] = True


def follow(engine):
    """Route this engine's connections through the joined connection while a test holds one (if armed)."""
    if not _state["armed"]:
        return
    real_connect, real_raw_connection = engine.connect, engine.raw_connection

    def connect():
        outer = _outer(engine)
        return real_connect() if outer is None else JoinedConnection(engine, outer)

    def raw_connection():
        outer = _outer(engine)
        if outer is None:
            return real_raw_connection()
        return JoinedRawConnection(outer.connection.dbapi_connection)

    engine.connect, engine.raw_connection = connect, raw_connection


def join(outer):
    """From now on, connections of followed engines on `outer`'s database join `outer`'s transaction."""
    _state["outer"], _state["thread"] = outer, threading.get_ident()


def leave():
    _state["outer"] = _state["thread"] = None


def joins(engine):
    """True while `engine`'s connections join a test's transaction (never in production)."""
    return _state["outer"] is not None and _outer(engine) is not None


def is_joined(connection):
    """True for a connection inside the test's transaction (its commit is a savepoint's release)."""
    return isinstance(connection, JoinedConnection)


def release(outer):
    """Before `outer` closes: joined connections a test left open no longer hold its pool checkout."""
    outer.connection._counter = 1


def _outer(engine):
    outer = _state["outer"]
    if outer is None or engine.url != outer.engine.url:
        return None
    if threading.get_ident() != _state["thread"]:
        raise RuntimeError("a connection was asked for from another thread while the test's transaction is "
                           "joined: a test that serves requests from threads must commit for real "
                           "(@pytest.mark.commits)")
    return outer


class JoinedConnection(Connection):
    """A Connection on the outer connection's database connection whose transactions are savepoints."""

    def __init__(self, engine, outer):
        fairy = outer.connection
        # The pool's own count of users of this checkout: closing this Connection releases one use, never
        # the outer connection's checkout.
        fairy._counter += 1
        self._joined_autocommit = False
        self._joined_savepoint = None
        super().__init__(engine, connection=fairy)

    def execution_options(self, **options):
        isolation_level = options.pop("isolation_level", None)
        if isolation_level is not None:
            self._joined_autocommit = isolation_level == "AUTOCOMMIT"
        return super().execution_options(**options) if options else self

    def _driver_execute(self, sql):
        self.connection.dbapi_connection.execute(sql)

    def _begin_impl(self, transaction):
        self._joined_savepoint = f"joined_{next(_names)}"
        # Starts as a transaction of its own would: without what an earlier one SET LOCAL (a request's or a
        # migration's search_path must not let the next session read that clinic's tables), and with its own
        # clock: now() answers its start (tests/common/clock.py). The outer transaction may rest idle between
        # tests.
        self._driver_execute(
            f"SAVEPOINT {self._joined_savepoint}; RESET ALL; "
            f"SELECT set_config('{CLOCK_SETTING}', clock_timestamp()::text, true), "
            "set_config('idle_in_transaction_session_timeout', '0', true)")

    def _commit_impl(self):
        self._end_savepoint(keep=True)

    def _rollback_impl(self):
        self._end_savepoint(keep=self._joined_autocommit)

    def _end_savepoint(self, keep):
        name, self._joined_savepoint = self._joined_savepoint, None
        if name is None or not self._still_open_and_dbapi_connection_is_valid:
            return
        failed = self.connection.dbapi_connection.info.transaction_status == pq.TransactionStatus.INERROR
        if not keep or failed:
            self._driver_execute(f"ROLLBACK TO SAVEPOINT {name}")
        self._driver_execute(f"RELEASE SAVEPOINT {name}")


class JoinedRawConnection:
    """What `engine.raw_connection()` hands out while joined (the rate-limit store uses it in autocommit)."""

    def __init__(self, dbapi_connection):
        self.dbapi_connection = self.driver_connection = _JoinedDriver(dbapi_connection)

    def close(self):
        pass

    def invalidate(self, exception=None):
        pass


class _JoinedDriver:
    """The psycopg connection as autocommit code sees it: each statement kept in a savepoint of its own."""

    autocommit = False  # set and reset by callers; the statement's savepoint is what keeps its effect

    def __init__(self, dbapi_connection):
        self._connection = dbapi_connection

    def execute(self, query, params=None):
        with self._connection.transaction():
            return self._connection.execute(query, params)

    def __getattr__(self, name):
        return getattr(self._connection, name)
