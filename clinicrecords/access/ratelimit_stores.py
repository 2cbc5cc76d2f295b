"""Where the rate-limit and monthly counters live. Both stores are shared by every server process; the monthly
and daily counts (billing data) are in PostgreSQL with either."""

from sqlalchemy import bindparam, func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import BigInteger, Date, DateTime, Integer, String, Uuid

from clinicrecords import redis_connection
from clinicrecords.access.models import WorkspaceDailyUsage, WorkspaceUsage
from clinicrecords.db import commit_wait
from clinicrecords.db.reconnect import drop_pool, server_gone
from clinicrecords.db.tenancy import UNSENT, begin_with

# One statement, one round trip: count the key's minute and, when the request is allowed and belongs to a
# workspace, its month and its UTC day (the portal's per-day chart). The window only moves forward
# (GREATEST), so a process whose clock lags at the minute's edge adds to the current window instead of
# resetting it. With :expected_version (the key came from the in-process key cache), nothing at all is counted
# unless the reach version is still that one: the statement then returns no row, and the gate reads the key.
# Each value is named once (`given`): sent with a request's BEGIN, the statement is bound client-side, and each
# placeholder is one value to quote.
_HIT = text("""
WITH given AS (
    SELECT CAST(:api_key_id AS uuid) AS api_key_id, CAST(:window_start AS timestamptz) AS window_start,
           CAST(:workspace_id AS uuid) AS workspace_id, CAST(:month AS date) AS month,
           CAST(:mode AS varchar) AS mode, CAST(:limit AS integer) AS per_minute,
           CAST(:expected_version AS bigint) AS expected_version
), minute AS (
    INSERT INTO control.rate_limit_counters AS c (api_key_id, window_start, count)
    SELECT api_key_id, window_start, 1 FROM given
    WHERE expected_version IS NULL OR expected_version = (SELECT version FROM control.reach_version)
    ON CONFLICT (api_key_id) DO UPDATE SET
        count = CASE WHEN excluded.window_start > c.window_start THEN 1 ELSE c.count + 1 END,
        window_start = GREATEST(c.window_start, excluded.window_start)
    RETURNING c.count, c.window_start
), month AS (
    INSERT INTO control.workspace_usage AS u (workspace_id, month, mode, requests)
    SELECT given.workspace_id, given.month, given.mode, 1 FROM given, minute
    WHERE given.workspace_id IS NOT NULL AND minute.count <= given.per_minute
    ON CONFLICT (workspace_id, month, mode) DO UPDATE SET requests = u.requests + 1
), day AS (
    INSERT INTO control.workspace_usage_daily AS d (workspace_id, day, mode, requests)
    SELECT given.workspace_id, CAST(given.window_start AT TIME ZONE 'UTC' AS date), given.mode, 1
    FROM given, minute WHERE given.workspace_id IS NOT NULL AND minute.count <= given.per_minute
    ON CONFLICT (workspace_id, day, mode) DO UPDATE SET requests = d.requests + 1
)
SELECT count, window_start FROM minute
""").bindparams(
    bindparam("api_key_id", type_=Uuid()), bindparam("window_start", type_=DateTime(timezone=True)),
    bindparam("workspace_id", type_=Uuid()), bindparam("month", type_=Date()), bindparam("mode", type_=String()),
    bindparam("limit", type_=Integer()), bindparam("expected_version", type_=BigInteger()),
)
# The Redis store's month and day: the same inserts as _HIT's, for a request Redis's minute window allowed.
_USAGE = text("""
WITH month AS (
    INSERT INTO control.workspace_usage AS u (workspace_id, month, mode, requests)
    VALUES (CAST(:workspace_id AS uuid), CAST(:month AS date), CAST(:mode AS varchar), 1)
    ON CONFLICT (workspace_id, month, mode) DO UPDATE SET requests = u.requests + 1
)
INSERT INTO control.workspace_usage_daily AS d (workspace_id, day, mode, requests)
VALUES (CAST(:workspace_id AS uuid), CAST(CAST(:window_start AS timestamptz) AT TIME ZONE 'UTC' AS date),
        CAST(:mode AS varchar), 1)
ON CONFLICT (workspace_id, day, mode) DO UPDATE SET requests = d.requests + 1
RETURNING requests
""").bindparams(
    bindparam("workspace_id", type_=Uuid()), bindparam("window_start", type_=DateTime(timezone=True)),
    bindparam("month", type_=Date()), bindparam("mode", type_=String()),
)
_VERSION = "SELECT version FROM control.reach_version"


def _on_driver(engine, sql, params):
    """The first row of `sql` run on a pooled connection's psycopg connection in autocommit; driver errors
    raised as SQLAlchemy's, so the exception views answer exactly as for any statement (503 when unavailable)."""
    try:
        pooled = engine.raw_connection()
    except engine.dialect.loaded_dbapi.Error as exc:  # with the key cached, this can be the request's first connect
        raise DBAPIError.instance(sql, params, exc, engine.dialect.loaded_dbapi.Error) from exc
    try:
        driver = pooled.driver_connection
        driver.autocommit = True
        try:
            with commit_wait.watched(engine, driver):  # the count commits at once: a synchronous standby confirms it
                return driver.execute(sql, params).fetchone()
        finally:
            driver.autocommit = False
    except engine.dialect.loaded_dbapi.Error as exc:
        if server_gone(engine.dialect, exc, pooled.driver_connection):
            drop_pool(engine, pooled, exc)  # the pool's other connections lead to the same dead server
        else:
            pooled.invalidate(exc)
        raise DBAPIError.instance(sql, params, exc, engine.dialect.loaded_dbapi.Error) from exc
    finally:
        pooled.close()


class PostgresStore:
    """Counts in a connection of its own in autocommit: a request whose transaction aborts still counts,
    and the counter row is locked only for the one statement.

    This runs on every keyed request, so it skips SQLAlchemy's execution layer: the pooled connection's
    psycopg connection runs the statement (prepared by psycopg after a few uses) directly. Driver errors
    are raised as SQLAlchemy's, so the exception views answer exactly as before (503 when unavailable)."""

    def __init__(self, engine):
        self.engine = engine
        self._sql = str(_HIT.compile(dialect=engine.dialect))

    def hit(self, api_key_id, window_start, limit, *, workspace_id, month, mode, expected_version=None,
            session=None):
        """(count, window start), or (None, None) when `expected_version` is no longer the reach version.

        With `session` (the request's, not begun yet), the count is sent in the message that begins its
        transaction, on the connection that transaction uses, and still commits on its own: one round trip and
        one pool checkout fewer than a connection of its own (db/tenancy.py, `begin_with`)."""
        params = {"api_key_id": api_key_id, "window_start": window_start, "workspace_id": workspace_id,
                  "month": month, "mode": mode, "limit": limit, "expected_version": expected_version}
        row = UNSENT
        if session is not None and not session.in_transaction():
            row = begin_with(session, self._sql, params, prepared_as="clinicrecords_count")
            if row is None:
                # Nothing counted: the key is read again first, on a connection of its own, and the request
                # must not hold two. The BEGIN is undone and the count sent again with the next one.
                session.rollback()
        if row is UNSENT:
            row = _on_driver(self.engine, self._sql, params)
        return (None, None) if row is None else tuple(row)

    def usage(self, workspace_id, month):
        return self._read(month, workspace_id).get(workspace_id, _counts({}))

    def month_usage(self, month):
        """{workspace_id: {"live": n, "test": n}} for every workspace counted in the month."""
        return self._read(month)

    def _read(self, month, workspace_id=None):
        statement = select(WorkspaceUsage.workspace_id, WorkspaceUsage.mode, WorkspaceUsage.requests).where(
            WorkspaceUsage.month == month)
        if workspace_id is not None:
            statement = statement.where(WorkspaceUsage.workspace_id == workspace_id)
        with self.engine.connect() as connection:
            rows = connection.execute(statement).all()
        found = {}
        for row in rows:
            found.setdefault(row.workspace_id, {})[row.mode] = row.requests
        return {workspace: _counts(modes) for workspace, modes in found.items()}

    def daily_usage(self, workspace_id, first_day, last_day):
        """{day: requests of both modes} for the days in [first_day, last_day] that had any."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(WorkspaceDailyUsage.day, func.sum(WorkspaceDailyUsage.requests))
                .where(WorkspaceDailyUsage.workspace_id == workspace_id, WorkspaceDailyUsage.day >= first_day,
                       WorkspaceDailyUsage.day <= last_day)
                .group_by(WorkspaceDailyUsage.day)).all()
        return {day: int(total) for day, total in rows}


class RedisStore(PostgresStore):
    """Minute windows in Redis, months and days in PostgreSQL.

    Redis replicates asynchronously, so a failover may lose its last writes: the current minute's windows may
    restart (a key may then make up to twice its limit in that minute), but the workspace's monthly and daily
    counts are billing data and are written to PostgreSQL like the PostgreSQL store's, one statement per
    counted request (docs/decisions/0080-redis-behind-sentinel.md).

    The reach version lives in PostgreSQL with the data it versions: for a key from the key cache, one small
    SELECT of it on `engine` comes first (docs/decisions/0036-key-cache-that-stays-correct.md), and nothing is
    counted when it moved."""

    MINUTE_TTL = 120

    def __init__(self, client, engine):
        super().__init__(engine)
        self.client = client
        self._usage_sql = str(_USAGE.compile(dialect=engine.dialect))

    @classmethod
    def from_url(cls, url, engine):
        return cls(redis_connection.client(url), engine)

    def hit(self, api_key_id, window_start, limit, *, workspace_id, month, mode, expected_version=None,
            session=None):
        if expected_version is not None and _on_driver(self.engine, _VERSION, {})[0] != expected_version:
            return None, None
        minute_key = f"clinicrecords:ratelimit:{api_key_id}:{int(window_start.timestamp())}"
        pipe = self.client.pipeline()
        pipe.incr(minute_key)
        pipe.expire(minute_key, self.MINUTE_TTL)
        count, _ = pipe.execute()
        if workspace_id is not None and count <= limit:
            _on_driver(self.engine, self._usage_sql, {"workspace_id": workspace_id, "month": month, "mode": mode,
                                                      "window_start": window_start})
        return count, window_start


def _counts(modes):
    return {"live": modes.get("live", 0), "test": modes.get("test", 0)}
