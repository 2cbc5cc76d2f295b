"""The PostgreSQL rate-limit store runs its statement on the driver directly (decision 0025): it counts like the
Redis store, leaves no pooled connection in autocommit or in a transaction, and a database that does not
answer is still a 503."""

import datetime
import threading
import uuid

import pytest
import redis
import webtest
from sqlalchemy import text

from clinicrecords.access.ratelimit import RateLimiter
from clinicrecords.access.ratelimit_stores import PostgresStore, RedisStore
from clinicrecords.db import make_engine
from clinicrecords.settings import app_settings


class _Identity:
    def __init__(self, workspace_id):
        self.id = uuid.uuid4()
        self.rate_limit = None
        self.mode = "live"
        self.workspace_id = workspace_id


def _at(minute, second):
    return datetime.datetime(2031, 5, 1, 12, minute, second, tzinfo=datetime.UTC)


def test_both_stores_decide_alike_for_the_same_sequence(engine, redis_url):
    stores = {"postgres": PostgresStore(engine), "redis": RedisStore(redis.Redis.from_url(redis_url), engine)}
    decisions = {}
    for name, store in stores.items():
        workspace_id = uuid.uuid4()  # the month is counted in PostgreSQL by both
        limiter, identity = RateLimiter(store, live_per_minute=3), _Identity(workspace_id)
        decisions[name] = [(d.count, d.allowed, d.remaining, d.reset_seconds) for d in (
            limiter.hit(identity, _at(minute, second)) for minute, second in
            [(0, 1), (0, 20), (0, 30), (0, 40), (0, 59), (1, 0), (1, 30)])]
        decisions[name].append(limiter.usage(workspace_id, datetime.date(2031, 5, 1)))
    assert decisions["postgres"] == decisions["redis"]
    assert decisions["postgres"][-1] == {"live": 5, "test": 0}


def test_the_redis_store_s_months_and_days_outlive_what_redis_loses(engine, redis_url):
    """Redis replicates asynchronously: a failover may lose its last writes (here all of them, FLUSHALL). The
    billing month and the portal's days are in PostgreSQL, so they are still all there; only the minute window
    starts again."""
    first, second = uuid.uuid4(), uuid.uuid4()
    month, other_month = datetime.date(2032, 7, 1), datetime.date(2032, 8, 1)
    client = redis.Redis.from_url(redis_url)
    limiter = RateLimiter(RedisStore(client, engine), live_per_minute=3)
    for workspace_id, mode, when in [(first, "live", month), (first, "live", month), (first, "test", month),
                                     (second, "test", month), (second, "live", other_month)]:
        identity = _Identity(workspace_id)
        identity.mode = mode
        limiter.hit(identity, datetime.datetime.combine(when, datetime.time(9), tzinfo=datetime.UTC))
    again = _Identity(first)
    assert [limiter.hit(again, _at(0, second)).count for second in (1, 2)] == [1, 2]
    client.flushall()
    assert limiter.hit(again, _at(0, 3)).count == 1  # the window restarted: what the docs say may be lost
    usage = {w: counts for w, counts in limiter.month_usage(month).items() if w in (first, second)}
    assert usage == {first: {"live": 2, "test": 1}, second: {"live": 0, "test": 1}}
    assert limiter.usage(first, datetime.date(2031, 5, 1)) == {"live": 3, "test": 0}
    assert limiter.usage(second, other_month) == {"live": 1, "test": 0}
    assert limiter.daily_usage(first, month, datetime.date(2032, 7, 31)) == {datetime.date(2032, 7, 1): 3}


def test_the_pooled_connection_comes_back_clean(app):
    engine = make_engine(app_settings(app.registry), pool_size=1, max_overflow=0)
    try:
        PostgresStore(engine).hit(uuid.uuid4(), _at(0, 0), 10, workspace_id=None, month=_at(0, 0).date(),
                                  mode="live")
        with engine.connect() as connection:
            assert connection.connection.driver_connection.autocommit is False
            connection.execute(text("CREATE TEMPORARY TABLE rollback_probe (x int)"))
            connection.rollback()  # a transaction, as for any request: nothing survives it
            assert connection.execute(text("SELECT to_regclass('pg_temp.rollback_probe')")).scalar() is None
    finally:
        engine.dispose()


@pytest.mark.commits  # another thread holds the counter's row lock on a connection of its own
def test_a_counter_that_does_not_answer_is_a_503(world, make_app, engine):
    key_id, key = world.key_row(clinic_id=world.clinic())
    app = webtest.TestApp(make_app(**{"database.statement_timeout_ms": "300"}),
                          extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    headers = {"Authorization": f"Bearer {key}"}
    app.get("/v1/me", headers=headers, status=200)
    locked, release = threading.Event(), threading.Event()

    def hold_the_counter():
        with engine.begin() as connection:
            connection.execute(text(
                "SELECT 1 FROM control.rate_limit_counters c JOIN control.api_keys k ON k.id = c.api_key_id "
                "WHERE k.key_id = :key_id FOR UPDATE OF c"), {"key_id": key_id})
            locked.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_counter)
    holder.start()
    try:
        assert locked.wait(10)
        answer = app.get("/v1/me", headers=headers, status=503)
        assert answer.json["code"] == "service_unavailable" and answer.headers["Retry-After"] == "2"
    finally:
        release.set()
        holder.join()
    app.get("/v1/me", headers=headers, status=200)


def test_a_redis_that_does_not_answer_is_a_503_and_then_counts_on(world, make_app, tmp_path):
    from tests.common.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis").start()
    try:
        app = webtest.TestApp(make_app(**{"ratelimit.backend": "redis", "ratelimit.redis_url": server.url}),
                              extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        headers = {"Authorization": f"Bearer {world.key_row(clinic_id=world.clinic())[1]}"}
        app.get("/v1/me", headers=headers, status=200)
        server.stop()
        answer = app.get("/v1/me", headers=headers, status=503)
        assert answer.json["code"] == "service_unavailable" and answer.headers["Retry-After"] == "2"
        assert answer.content_type == "application/problem+json"
        server.start()
        app.get("/v1/me", headers=headers, status=200)
        # The append-only file kept the count across the restart, and the refused request was not counted.
        with server.client() as client:
            assert sum(int(client.get(name)) for name in client.keys("clinicrecords:ratelimit:*")) == 2
    finally:
        server.stop()
