"""Spec, Limits → Rate limiting: per key per minute, 429 rate_limited with Retry-After, RateLimit-* headers on
every keyed answer, one limit across several server processes."""

import datetime
import uuid

import pytest
import webtest
from sqlalchemy import select

from clinicrecords.access.models import ApiKey, RateLimitCounter
from clinicrecords.access.ratelimit import RateLimiter
from clinicrecords.access.ratelimit_stores import PostgresStore
from tests.access.helpers import bearer


def _limited(response, limit):
    assert response.status_int == 429
    assert response.content_type == "application/problem+json"
    assert response.json["code"] == "rate_limited"
    retry_after = response.headers["Retry-After"]
    assert retry_after.isdigit() and 1 <= int(retry_after) <= 60
    assert response.headers["RateLimit-Limit"] == str(limit)
    assert response.headers["RateLimit-Remaining"] == "0"
    assert response.headers["RateLimit-Reset"] == retry_after


def test_headers_on_every_keyed_answer_success_and_problem(world, testapp):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id, rate_limit=50, scopes={"allergies:read"})
    answers = [
        testapp.get("/v1/me", headers=bearer(key), status=200),
        testapp.get(f"/v1/clinics/{uuid.uuid4()}/patients", headers=bearer(key), status=404),
        testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=bearer(key), status=403),
        testapp.get("/v1/me?limit=x", headers=bearer(key), status=400),
        testapp.post("/v1/me", headers=bearer(key), status=405),
    ]
    remaining = [int(a.headers["RateLimit-Remaining"]) for a in answers]
    assert remaining == [49, 48, 47, 46, 45]
    for answer in answers:
        assert answer.headers["RateLimit-Limit"] == "50"
        assert 1 <= int(answer.headers["RateLimit-Reset"]) <= 60


def test_answers_without_a_valid_key_carry_no_rate_limit_headers(testapp):
    assert "RateLimit-Limit" not in testapp.get("/v1/me", status=401).headers
    assert "RateLimit-Limit" not in testapp.get("/healthz", status=200).headers


def test_per_key_limit_answers_429_past_it(world, testapp):
    key = world.key(clinic_id=world.clinic(), rate_limit=3)
    for _ in range(3):
        testapp.get("/v1/me", headers=bearer(key), status=200)
    _limited(testapp.get("/v1/me", headers=bearer(key), status=429), 3)
    # Another key of the same owner has a budget of its own.
    testapp.get("/v1/me", headers=bearer(world.key(clinic_id=world.clinic())), status=200)


def test_default_limits_come_from_the_settings_per_mode(world, make_app):
    app = webtest.TestApp(make_app(**{"ratelimit.live_per_minute": "2", "ratelimit.test_per_minute": "1"}),
                          extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    workspace_id, _ = world.workspace()
    live, test = world.key(workspace_id=workspace_id, mode="live"), world.key(workspace_id=workspace_id, mode="test")
    assert app.get("/v1/me", headers=bearer(live)).headers["RateLimit-Limit"] == "2"
    app.get("/v1/me", headers=bearer(live), status=200)
    _limited(app.get("/v1/me", headers=bearer(live), status=429), 2)
    app.get("/v1/me", headers=bearer(test), status=200)
    _limited(app.get("/v1/me", headers=bearer(test), status=429), 1)
    # A key's own limit wins over the setting (large partners, load tests).
    big = world.key(workspace_id=workspace_id, mode="test", rate_limit=5)
    assert app.get("/v1/me", headers=bearer(big)).headers["RateLimit-Limit"] == "5"


def test_the_limit_holds_across_two_app_instances_sharing_the_store(world, make_app):
    settings = {"ratelimit.live_per_minute": "4"}
    first = webtest.TestApp(make_app(**settings), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    second = webtest.TestApp(make_app(**settings), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    key = world.key(clinic_id=world.clinic())
    remaining = []
    for app in (first, second, first, second):
        remaining.append(app.get("/v1/me", headers=bearer(key), status=200).headers["RateLimit-Remaining"])
    assert remaining == ["3", "2", "1", "0"]
    _limited(first.get("/v1/me", headers=bearer(key), status=429), 4)
    _limited(second.get("/v1/me", headers=bearer(key), status=429), 4)


def test_a_request_that_fails_and_aborts_still_counts(world, testapp, engine):
    key_id, key = world.key_row(clinic_id=world.clinic(), rate_limit=2)
    testapp.get(f"/v1/clinics/{uuid.uuid4()}/patients", headers=bearer(key), status=404)
    testapp.post_json("/v1/me", {"x": 1}, headers=bearer(key), status=405)
    _limited(testapp.get("/v1/me", headers=bearer(key), status=429), 2)
    with engine.connect() as connection:
        api_key_id = connection.execute(select(ApiKey.id).where(ApiKey.key_id == key_id)).scalar()
        assert connection.execute(select(RateLimitCounter.count).where(
            RateLimitCounter.api_key_id == api_key_id)).scalar() == 3


class _Identity:
    def __init__(self, rate_limit=None, mode="live", workspace_id=None):
        self.id = uuid.uuid4()
        self.rate_limit = rate_limit
        self.mode = mode
        self.workspace_id = workspace_id


def _at(text):
    return datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.UTC)


def test_the_window_is_the_utc_minute_and_never_moves_back(engine):
    limiter = RateLimiter(PostgresStore(engine), live_per_minute=2)
    identity = _Identity()
    first = limiter.hit(identity, _at("2030-01-01T12:00:10"))
    assert (first.count, first.remaining, first.reset_seconds) == (1, 1, 50)
    assert limiter.hit(identity, _at("2030-01-01T12:00:59.5")).reset_seconds == 1
    third = limiter.hit(identity, _at("2030-01-01T12:00:59.9"))
    assert not third.allowed and third.remaining == 0
    fresh = limiter.hit(identity, _at("2030-01-01T12:01:00"))
    assert (fresh.count, fresh.allowed, fresh.reset_seconds) == (1, True, 60)
    # A process whose clock lags behind adds to the current window rather than resetting it.
    late = limiter.hit(identity, _at("2030-01-01T12:00:59.99"))
    assert late.count == 2 and late.reset_seconds == 60


@pytest.mark.parametrize("mode, setting", [("live", 600), ("test", 120)])
def test_defaults_without_settings_are_600_live_and_120_test(engine, mode, setting):
    assert RateLimiter(PostgresStore(engine)).limit_for(_Identity(mode=mode)) == setting


def test_the_redis_store_counts_like_the_postgres_one(redis_url, engine):
    from clinicrecords.access.ratelimit_stores import RedisStore

    # Two processes, two clients, one Redis.
    first = RateLimiter(RedisStore.from_url(redis_url, engine), live_per_minute=2)
    second = RateLimiter(RedisStore.from_url(redis_url, engine), live_per_minute=2)
    workspace_id = uuid.uuid4()
    identity = _Identity(workspace_id=workspace_id)
    assert first.hit(identity, _at("2030-03-01T12:00:10")).remaining == 1
    assert second.hit(identity, _at("2030-03-01T12:00:20")).remaining == 0
    refused = first.hit(identity, _at("2030-03-01T12:00:30"))
    assert (refused.allowed, refused.reset_seconds) == (False, 30)
    assert second.hit(identity, _at("2030-03-01T12:01:00")).allowed
    # Refused requests are not counted in the month.
    assert first.usage(workspace_id, datetime.date(2030, 3, 1)) == {"live": 3, "test": 0}
    assert first.usage(workspace_id, datetime.date(2030, 4, 1)) == {"live": 0, "test": 0}


def test_the_backend_is_chosen_by_the_settings(engine):
    from clinicrecords.access.ratelimit import make_store
    from clinicrecords.access.ratelimit_stores import RedisStore
    from clinicrecords.settings import RateLimitSettings, read_section

    def store(settings):
        return make_store(read_section(RateLimitSettings, settings), engine)

    assert isinstance(store({}), PostgresStore)
    assert isinstance(store({"ratelimit.backend": "redis", "ratelimit.redis_url": "redis://127.0.0.1:1/0"}),
                      RedisStore)
    for settings in ({"ratelimit.backend": "redis"}, {"ratelimit.backend": "memcached"}):
        with pytest.raises(ValueError):
            store(settings)
