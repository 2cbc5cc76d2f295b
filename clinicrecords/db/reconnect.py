"""What a process does when the server behind its pooled connections is gone or no longer the primary.

After a failover every pooled connection leads to a dead primary (or, through a pooler, to a demoted one). The
first statement that meets one drops the whole pool, not only that connection: SQLAlchemy marks every
connection opened before as stale, and each is replaced by a fresh one on its next checkout, whose conninfo
(the multi-host URL with `target_session_attrs=read-write`) finds the promoted primary. A pre-ping on every
checkout would find them too, at a round trip per request (docs/performance.md); this costs nothing until a
server goes. The request that met the dead connection answers 503 (api/errorviews.py); the next one runs on a
fresh connection.

A server that answers but is read-only (`cannot execute INSERT in a read-only transaction`, SQLSTATE 25006) is
a standby: treated the same, since no statement on that connection will ever write again.

Statements run through SQLAlchemy are followed by the `handle_error` listener; those that skip its execution
layer (`prebuilt`, the rate-limit counter, the COMMIT sent with statements) call `server_gone` and
`drop_pool` themselves.
"""

from psycopg import errors as pg_errors
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError


def is_read_only(error):
    return isinstance(error, pg_errors.ReadOnlySqlTransaction)


def server_gone(dialect, error, driver_connection):
    """Is `error` (the driver's) a sign that no statement on this connection will succeed again?"""
    return dialect.is_disconnect(error, driver_connection, None) or is_read_only(error)


def drop_pool(engine, pooled, error):
    """Invalidate `pooled` (a checked-out pool connection) and every connection the pool opened before it, as
    SQLAlchemy does itself on a disconnect."""
    engine.pool._invalidate(pooled, error)


def follow_failover(engine):
    """A read-only server is a disconnect too, for statements run through SQLAlchemy (the pool is dropped, the
    error says the connection was invalidated)."""
    @event.listens_for(engine, "handle_error")
    def read_only_is_gone(context):
        if is_read_only(context.original_exception):
            context.is_disconnect = True


def as_sqlalchemy_error(connection, driver, statement, params, exc):
    """A driver error as SQLAlchemy would have raised it (so the exception views, the 503 on an unavailable
    database and pyramid_tm's retry of serialization failures answer alike); when the server is gone (or
    read-only), the pool's connections invalidated with this one (`drop_pool`)."""
    dialect = connection.dialect
    invalidated = server_gone(dialect, exc, driver)
    if invalidated:
        drop_pool(connection.engine, connection.connection, exc)
        connection.invalidate(exc)
    return DBAPIError.instance(statement, params, exc, dialect.loaded_dbapi.Error,
                               connection_invalidated=invalidated, dialect=dialect)
