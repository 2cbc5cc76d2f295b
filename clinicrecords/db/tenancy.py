"""Which schema holds a clinic's records, and how a session is pointed at it.

Schema names are built from a `uuid.UUID` only: a value that did not parse as a uuid can never reach SQL.

A clinic's tables are named without a schema in every statement; the transaction that reads or writes them runs
with `search_path` set to the clinic's schema, transaction-local (`SET LOCAL`). So one statement text serves
every clinic: SQLAlchemy compiles it once, psycopg parses and prepares it once per connection, and PostgreSQL's
plan cache, which keys a plan on the search_path it was made under, re-plans it for another clinic instead of
holding a statement per clinic (docs/decisions/0106-statement-text-shared-across-clinics.md).

What keeps a statement in its clinic: the application role's default `search_path` is empty, so a tenant
statement in a transaction not pointed at a clinic fails ("relation does not exist") instead of reading one;
and a transaction-local setting ends with its transaction (COMMIT, ROLLBACK, a savepoint rolled back), so
neither a pooled connection nor a transaction pooler's server connection carries a clinic into the next.
"""

import functools
import re
import uuid

import psycopg
from psycopg import generators, pq
from psycopg.adapt import Transformer
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from clinicrecords.db import commit_wait, joined
from clinicrecords.db.reconnect import as_sqlalchemy_error
from clinicrecords.db.literals import bind

SCHEMA_PREFIX = "clinic_"
_SCHEMA = re.compile(SCHEMA_PREFIX + "[0-9a-f]{32}")
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_TENANT_KEY = "tenant_schema"
# A keyed request's session takes its clinic's restore lock, shared, with the BEGIN (`guard_clinic`); whether it
# got it is kept here for `clinic_guard_held`.
_GUARDED = "tenant_guarded"
_GUARD_HELD = "tenant_guard_held"
_POINTED = "tenant_pointed"  # (the session's root transaction, schema) its connection was last pointed for
_BEGIN_WITH = "tenant_begin_with"  # a statement to send before the BEGIN, in the same message (`begin_with`)
_BEGUN_WITH = "tenant_begun_with"  # its first row
UNSENT = object()  # `begin_with`'s answer when its statement could not travel with a BEGIN
_PREPARED = "clinicrecords.prepared_before_begin"  # in a pooled connection's info: the names prepared on it


def schema_name(clinic_id):
    if not isinstance(clinic_id, uuid.UUID):
        raise TypeError(f"a clinic schema is named from a uuid.UUID, not {type(clinic_id).__name__}")
    return SCHEMA_PREFIX + clinic_id.hex


def translate_map(clinic_id):
    """For a statement run outside a pointed transaction (a write apart): the clinic's schema written into it."""
    return {None: schema_name(clinic_id)}


def bind_to_clinic(session, clinic_id):
    """Point this session's transactions at the clinic's schema: the one in progress, if any, and every one it
    begins from now on (on whatever connection)."""
    schema = schema_name(clinic_id)
    session.info[_TENANT_KEY] = schema
    if session.in_transaction():
        connection = session.connection()  # a connection taken just now was pointed by `_point_on_begin`
        if session.info.get(_POINTED) != (session.get_transaction(), schema):
            point_at(connection, schema)
            session.info[_POINTED] = (session.get_transaction(), schema)


def clinic_lock_key(clinic_id):
    """The advisory lock a clinic's restore holds exclusively for its whole transaction (restores context), and
    a keyed request's transaction shared: 64 bits of the clinic's uuid, so no two clinics share one in
    practice."""
    return _lock_key(clinic_id.hex)


def _lock_key(hex_digits):
    # The uuid's first 16 hex digits (its first 8 bytes), big-endian, signed: a bigint as PostgreSQL takes it.
    return int.from_bytes(bytes.fromhex(hex_digits[:16]), "big", signed=True)


def guard_clinic(session):
    """The session's next transaction takes the clinic's restore lock, shared, without waiting, in the message
    that begins it (no round trip more): while a restore of the clinic runs, it does not get it."""
    session.info[_GUARDED] = True


def clinic_guard_held(session):
    """Whether the transaction `guard_clinic` asked for got the clinic's restore lock (begun here if it has not
    yet: the BEGIN its first statement would send)."""
    if _GUARD_HELD not in session.info:
        session.connection()
    return session.info.get(_GUARD_HELD, True)


def bound_schema(session):
    return session.info.get(_TENANT_KEY)


def bound_clinic_id(session):
    """The clinic (uuid.UUID) whose schema `session` is bound to, or None."""
    schema = bound_schema(session)
    return uuid.UUID(schema[len(SCHEMA_PREFIX):]) if schema and _SCHEMA.fullmatch(schema) else None


def begin_with(session, query, params, prepared_as=None):
    """Run `query` (text with %(name)s placeholders, its `params` bound client-side: db/literals.py) as a statement
    of its own, committed at once, in the same message as the BEGIN of `session`'s transaction and the setting
    that points it at its clinic (`point_at`): one round trip for both. Its first row (a tuple), or None.

    For a statement that must commit whatever becomes of the request's transaction and that the request waits
    for anyway before its first statement (the rate-limit counter). `session` must be bound to a clinic and
    not have begun.

    `prepared_as`: a name to PREPARE the statement under on each connection (in the first message that sends it
    there), so that PostgreSQL plans it once per connection, not on every request; ignored through a
    transaction pooler (`database.pooled`), whose server connections a prepared statement does not follow.

    `UNSENT` when its transaction is not one the statement can precede (a connection in a transaction already,
    the test suite's joined one): the statement was not run, and the caller runs it apart."""
    if session.in_transaction() or bound_schema(session) is None:
        raise RuntimeError("begin_with needs a session bound to a clinic that has not begun its transaction")
    if joined.joins(session.get_bind()):
        return UNSENT  # its transaction would be a savepoint, which the statement must not be in
    session.info[_BEGIN_WITH] = (query, params, prepared_as)
    try:
        session.connection()  # begins: `_point_on_begin` sends the statement with the BEGIN
    finally:
        session.info.pop(_BEGIN_WITH, None)
    return session.info.pop(_BEGUN_WITH, UNSENT)


@event.listens_for(Session, "after_begin")
def _point_on_begin(session, transaction, connection):
    schema = session.info.get(_TENANT_KEY)
    before = session.info.pop(_BEGIN_WITH, None)
    guarded = session.info.pop(_GUARDED, False)
    session.info.pop(_GUARD_HELD, None)
    session.info[_POINTED] = None
    if schema is not None:
        row = point_at(connection, schema, before, guard=guarded)
        if guarded:
            session.info[_GUARD_HELD] = connection.info.pop(_GUARD_HELD)
        if before is not None:
            session.info[_BEGUN_WITH] = row
        session.info[_POINTED] = (session.get_transaction(), schema)


def point_at(connection, schema, before=None, guard=False):
    """Set the search_path of `connection`'s transaction (a SQLAlchemy Connection) to `schema`, for that
    transaction only.

    When the driver has not begun the transaction yet (the usual case: SQLAlchemy begins lazily, psycopg sends
    BEGIN with the first statement), BEGIN and the setting go in one message: the round trip BEGIN costs
    anyway, and `before` (`begin_with`'s statement) goes first in it; its first row is returned. Inside a
    transaction already begun, the setting is one statement more, and `before` is not sent: UNSENT.

    `guard`: the clinic's restore lock tried, shared, in the same message (`guard_clinic`); whether it was
    got is left in `connection.info` for the session."""
    if not _idle(connection):
        connection.exec_driver_sql(_setting(connection.connection.driver_connection, schema))
        if guard:
            connection.info[_GUARD_HELD] = connection.exec_driver_sql(_guard_statement(schema)).scalar()
        return UNSENT
    return _begin(connection, schema, before, guard)


def _guard_statement(schema):
    if not _SCHEMA.fullmatch(schema):
        raise ValueError(f"not a clinic schema: {schema!r}")
    # A number made from the schema's uuid digits (no uuid built on every request): nothing to escape.
    return f"SELECT pg_try_advisory_xact_lock_shared({_lock_key(schema[len(SCHEMA_PREFIX):])})"


def _idle(connection):
    return connection.connection.driver_connection.pgconn.transaction_status == pq.TransactionStatus.IDLE


def _setting(driver, schema):
    if driver.autocommit:
        raise RuntimeError("a clinic's statements need a transaction: a connection in autocommit has no "
                           "transaction-local search_path")
    if not _SCHEMA.fullmatch(schema):
        raise ValueError(f"not a clinic schema: {schema!r}")
    return f'SET LOCAL search_path TO "{schema}"'  # a prefix and a uuid's hex digits: nothing to escape


def _begin(connection, schema, before, guard=False):
    """One message: `before` (query, params, prepared_as; or None) committed on its own, BEGIN, the clinic's
    setting and, with `guard`, the try of its restore lock. The first row of `before`, if any."""
    driver = connection.connection.driver_connection
    begin = [_begin_command(driver), _setting(driver, schema)]
    if guard:
        begin.append(_guard_statement(schema))
    if before is None:
        results = _send(connection, driver, begin)
        if guard:
            connection.info[_GUARD_HELD] = _got(results[-1])
        return None
    query, params, prepared_as = before
    if prepared_as is not None and driver.prepare_threshold is None:
        prepared_as = None  # through a transaction pooler, whose server connections a PREPARE does not follow
    prepared = connection.connection.info.setdefault(_PREPARED, set())

    def send():
        """The results of the statement (after its PREPARE's, when this message prepares it)."""
        prepare = prepared_as is not None and prepared_as not in prepared
        # The statement's own transaction, begun and committed in so many words: a COMMIT ending the implicit
        # transaction of a multi-statement message would draw a warning ("there is no transaction in
        # progress") into the server's log on every request, and the BEGIN must not take the statement in.
        results = _send(connection, driver, ["BEGIN", *_statement_before(driver, query, params, prepared_as, prepare),
                                             "COMMIT", *begin])
        if prepare:
            prepared.add(prepared_as)
        return results[2:] if prepare else results[1:]

    with commit_wait.watched(connection.engine, driver):  # it commits at once: a synchronous standby confirms it
        try:
            results = send()
        except DBAPIError as exc:
            # The message stopped before its COMMIT, in the statement's own transaction: ended here, so that
            # nothing is begun.
            if driver.pgconn.transaction_status == pq.TransactionStatus.INERROR:
                _send(connection, driver, ["ROLLBACK"])
            # What this connection holds prepared was changed behind the set's back: psycopg deallocates every
            # prepared statement of a connection when a transaction rolls back, and a PREPARE stays when the
            # message fails after it. Either way: sent again, set right.
            if prepared_as is None:
                raise
            if isinstance(exc.orig, psycopg.errors.InvalidSqlStatementName):
                prepared.discard(prepared_as)
            elif isinstance(exc.orig, psycopg.errors.DuplicatePreparedStatement):
                prepared.add(prepared_as)
            else:
                raise
            results = send()
    if guard:
        connection.info[_GUARD_HELD] = _got(results[-1])
    if not results[0].ntuples:
        return None
    return _first_row(driver, results[0])


def _first_row(driver, result):
    loader = Transformer.from_context(driver)
    loader.set_pgresult(result)
    return loader.load_row(0, tuple)


def _got(result):
    """The boolean a lock's try answered, as the simple protocol sends it: text, `t` or `f`."""
    return result.get_value(0, 0) == b"t"


def _send(connection, driver, parts):
    """`parts` in one simple-protocol message; every result, once all succeeded."""
    message = "; ".join(parts)
    try:
        with driver.lock:
            driver.pgconn.send_query(message.encode())
            results = driver.wait(generators.execute(driver.pgconn))
        for result in results:
            if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
                raise psycopg.errors.error_from_result(result, encoding=driver.info.encoding)
    except psycopg.Error as exc:
        raise as_sqlalchemy_error(connection, driver, message, None, exc) from exc
    return results


def _statement_before(driver, query, params, prepared_as, prepare):
    """The statement sent before a BEGIN, bound client-side: EXECUTE of the statement prepared on this connection
    as `prepared_as` (after its PREPARE, with `prepare`), or the statement itself."""
    if prepared_as is None:
        return [bind(driver, query, params)]
    positional, names = _positional(query)
    execute = bind(driver, f"EXECUTE {prepared_as}({', '.join(f'%({name})s' for name in names)})", params)
    return [f"PREPARE {prepared_as} AS {positional}", execute] if prepare else [execute]


@functools.lru_cache(maxsize=16)
def _positional(query):
    """`query`'s %(name)s placeholders as $1, $2, ... (one per name, in order of first appearance), and the
    names in that order."""
    names = list(dict.fromkeys(_PLACEHOLDER.findall(query)))
    return _PLACEHOLDER.sub(lambda found: f"${names.index(found[1]) + 1}", query), tuple(names)


def _begin_command(driver):
    """psycopg's own BEGIN for this connection (its isolation level, read only, deferrable)."""
    parts = ["BEGIN"]
    if driver.isolation_level is not None:
        parts.append("ISOLATION LEVEL " + psycopg.IsolationLevel(driver.isolation_level).name.replace("_", " "))
    if driver.read_only is not None:
        parts.append("READ ONLY" if driver.read_only else "READ WRITE")
    if driver.deferrable is not None:
        parts.append("DEFERRABLE" if driver.deferrable else "NOT DEFERRABLE")
    return " ".join(parts)
