"""The database pools' gauges (checked out, waiting) and the count of connections they replaced.

The gauges are read from the pools rather than counted on each checkout: with several processes, every change
of a gauge is a write to its file under PROMETHEUS_MULTIPROC_DIR, and counting in and out cost four such
writes per request. A process sets both gauges when it answers a scrape, and every second in between
(`every_second.READINGS`) for the scrape another process answers; a pool waited on for less than that may go
unseen, a pool too small for its load does not."""

import os
import threading
import weakref

from sqlalchemy import event
from sqlalchemy import exc as sa_exc

from clinicrecords.observability.every_second import READINGS
from clinicrecords.observability.metrics import DB_POOL_IN_USE, DB_POOL_REPLACED, DB_POOL_WAITING


class PoolWatch:
    """The engines this process serves from, and the checkouts waiting on their pools now.

    Engines, not pools: `engine.dispose()` gives an engine a new pool, which each read finds as `engine.pool`."""

    def __init__(self):
        self._engines = weakref.WeakSet()
        self._lock = threading.Lock()
        self._waiting = 0

    def watch(self, engine):
        self._engines.add(engine)
        self._count_waits(engine.pool)
        event.listen(engine.pool, "invalidate", _count_replaced)  # a recreated pool keeps its listeners
        READINGS.add(self.read)

    def read(self):
        """Both gauges set from what the pools hold now."""
        in_use = 0
        for engine in list(self._engines):
            self._count_waits(engine.pool)  # the pool a dispose left, counted from its first read on
            in_use += engine.pool.checkedout()
        DB_POOL_IN_USE.set(in_use)
        DB_POOL_WAITING.set(self._waiting)

    def _count_waits(self, pool):
        # The pool has no event for a checkout that waits: its `_do_get` (where it waits) is counted around.
        do_get = pool._do_get
        if getattr(do_get, "counted_by", None) is self:
            return

        def counted_do_get():
            with self._lock:
                self._waiting += 1
            try:
                return do_get()
            finally:
                with self._lock:
                    self._waiting -= 1

        counted_do_get.counted_by = self
        pool._do_get = counted_do_get

    def _after_fork(self):
        # A forked child keeps the parent's engines but none of its waiting checkouts.
        self._lock = threading.Lock()
        self._waiting = 0


def _count_replaced(dbapi_connection, record, exception):
    # bound_connection_uses (clinicrecords.db) retires a connection with a DisconnectionError of its own.
    reason = "max_uses" if isinstance(exception, sa_exc.DisconnectionError) else "server_gone"
    DB_POOL_REPLACED.labels(reason).inc()


POOLS = PoolWatch()
os.register_at_fork(after_in_child=POOLS._after_fork)


def watch_pool(engine):
    POOLS.watch(engine)
