"""The database pool's gauges from its own events: checked out, waiting, replaced."""

from sqlalchemy import event
from sqlalchemy import exc as sa_exc

from clinicrecords.observability.metrics import DB_POOL_IN_USE, DB_POOL_REPLACED, DB_POOL_WAITING


def watch_pool(engine):
    pool = engine.pool

    @event.listens_for(pool, "checkout")
    def checked_out(dbapi_connection, record, proxy):
        DB_POOL_IN_USE.inc()

    @event.listens_for(pool, "checkin")
    def checked_in(dbapi_connection, record):
        # A connection invalidated while checked out comes back without its DBAPI connection: still one less.
        DB_POOL_IN_USE.dec()

    @event.listens_for(pool, "invalidate")
    def replaced(dbapi_connection, record, exception):
        # bound_connection_uses (clinicrecords.db) retires a connection with a DisconnectionError of its own.
        reason = "max_uses" if isinstance(exception, sa_exc.DisconnectionError) else "server_gone"
        DB_POOL_REPLACED.labels(reason).inc()

    # The pool has no event for a checkout that waits: its `_do_get` (where it waits) is counted around.
    do_get = pool._do_get

    def counted_do_get():
        DB_POOL_WAITING.inc()
        try:
            return do_get()
        finally:
            DB_POOL_WAITING.dec()

    pool._do_get = counted_do_get
