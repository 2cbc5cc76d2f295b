"""Per-key, per-minute rate limits and the per-workspace monthly request counter.

A fixed window per UTC minute. The counters live in a store every server process shares: PostgreSQL
(`ratelimit.backend = postgres`, the default) or Redis (`ratelimit.backend = redis`, `ratelimit.redis_url`); the
monthly counter is in PostgreSQL with either, as a Redis failover may lose its last writes.
A request is counted outside the request's own transaction, so a request that fails and aborts still counts.
Requests refused with 429 do not count towards the monthly counter; every other keyed request does.
"""

import datetime
import math
from dataclasses import dataclass

from clinicrecords.access.keycache import StaleKey
from clinicrecords.access.ratelimit_stores import PostgresStore, RedisStore
from clinicrecords.api.problems import Problem
from clinicrecords.clock import now as clock_now
from clinicrecords.settings import RateLimitSettings

WINDOW = datetime.timedelta(minutes=1)
DEFAULT_LIVE_PER_MINUTE = RateLimitSettings.live_per_minute
DEFAULT_TEST_PER_MINUTE = RateLimitSettings.test_per_minute
_COUNTED = "clinicrecords.ratelimit"
# The process's RateLimiter, kept in the registry by clinicrecords.access.
RATE_LIMITER = "access.rate_limiter"


@dataclass(frozen=True)
class Decision:
    limit: int
    count: int
    reset_seconds: int

    @property
    def allowed(self):
        return self.count <= self.limit

    @property
    def remaining(self):
        return max(0, self.limit - self.count)

    @property
    def headers(self):
        return {"RateLimit-Limit": str(self.limit), "RateLimit-Remaining": str(self.remaining),
                "RateLimit-Reset": str(self.reset_seconds)}


def window_start(now):
    return now.replace(second=0, microsecond=0)


def month_of(now):
    return now.date().replace(day=1)


def seconds_until_reset(now, start):
    """Whole seconds, rounded up, until the window that began at `start` ends: 1 to 60."""
    return min(int(WINDOW.total_seconds()), max(1, math.ceil((start + WINDOW - now).total_seconds())))


class RateLimiter:
    def __init__(self, store, live_per_minute=DEFAULT_LIVE_PER_MINUTE, test_per_minute=DEFAULT_TEST_PER_MINUTE,
                 clock=None):
        self.store = store
        self.defaults = {"live": live_per_minute, "test": test_per_minute}
        self.clock = clock or clock_now

    def limit_for(self, identity):
        return identity.rate_limit or self.defaults[identity.mode]

    def hit(self, identity, now=None, session=None):
        """Count one request of this key (and of its workspace's month) and decide. For an identity from the
        key cache, only while the reach version is still the one it was cached with: else nothing is counted
        and the answer is None. `session`: the request's, whose transaction the count may begin (the store's
        `hit`)."""
        now = now or self.clock()
        limit = self.limit_for(identity)
        start = window_start(now)
        count, counted_start = self.store.hit(
            identity.id, start, limit, workspace_id=identity.workspace_id, month=month_of(now), mode=identity.mode,
            expected_version=getattr(identity, "cached_at_version", None), session=session)
        if count is None:
            return None
        return Decision(limit=limit, count=count, reset_seconds=seconds_until_reset(now, counted_start))

    def usage(self, workspace_id, month):
        """{"live": n, "test": n}: the workspace's requests in the month (a date, first of the month)."""
        return self.store.usage(workspace_id, month)

    def month_usage(self, month):
        """{workspace_id: {"live": n, "test": n}} for every workspace counted in the month."""
        return self.store.month_usage(month)

    def daily_usage(self, workspace_id, first_day, last_day):
        """{date: n}: the workspace's requests (both modes) per UTC day, for days that had any."""
        return self.store.daily_usage(workspace_id, first_day, last_day)


def current_decision(request):
    """This request's rate-limit decision, once the gate has counted it."""
    return request.environ.get(_COUNTED)


def rate_limit_check(request, identity, session=None):
    """The gate check: count the request, answer 429 past the limit, and put the RateLimit-* headers on
    whatever answer the request ends with (success or problem). `session`: the request's, bound to its clinic,
    when the count may travel with its BEGIN."""
    decision = request.environ.get(_COUNTED)
    if decision is None:
        # pyramid_retry reuses the environ for a retry: a retried request is not counted twice.
        decision = request.registry[RATE_LIMITER].hit(identity, session=session)
        if decision is None:
            raise StaleKey()
        request.environ[_COUNTED] = decision
    request.state.answer_headers.update(decision.headers)
    if not decision.allowed:
        raise Problem("rate_limited", f"This key may make {decision.limit} requests per minute. "
                      f"Retry after {decision.reset_seconds} seconds.",
                      headers={"Retry-After": str(decision.reset_seconds), **decision.headers})
    return decision


def make_store(settings, engine):
    """The counters' store from the `ratelimit.*` settings (a RateLimitSettings)."""
    backend = settings.backend
    if backend == "postgres":
        return PostgresStore(engine)
    if backend == "redis":
        url = settings.redis_url
        if not url:
            raise ValueError("ratelimit.backend = redis needs ratelimit.redis_url")
        return RedisStore.from_url(url, engine)
    raise ValueError(f"ratelimit.backend must be postgres or redis, not {backend!r}")


def make_limiter(settings, engine):
    """The limiter from the `ratelimit.*` settings (a RateLimitSettings)."""
    return RateLimiter(make_store(settings, engine), live_per_minute=settings.live_per_minute,
                       test_per_minute=settings.test_per_minute)
