"""Redis behind Sentinel (decision 0080): `redis_url` names one server or the Sentinels and a service, one
factory builds every client from it (the rate limiter's, Huey's), both follow a failover of a real primary
SIGKILLed on loopback, and keyed requests answer 503 problem+json, never 500, while Redis cannot take writes."""

import threading

import pytest
import redis
import webtest

from clinicrecords import redis_connection, tasks
from clinicrecords.access.ratelimit import make_store
from clinicrecords.redis_connection import RedisUrlError, parse_sentinel_url
from clinicrecords.settings import RateLimitSettings, read, read_section
from clinicrecords.tasks import task
from tests.common import task_queue
from tests.common.redis_sentinel import SentinelGroup
from tests.common.redis_server import RedisServer

ran = []


@task()
def note(request, value):
    ran.append(value)


def test_a_sentinel_url_names_the_sentinels_the_service_and_the_database():
    parsed = parse_sentinel_url("redis+sentinel://:s%40cret@h1:26380,h2,[::1]:26381/mymaster/2"
                                "?sentinel_password=theirs&socket_timeout=0.5")
    assert parsed == {"sentinels": [("h1", 26380), ("h2", 26379), ("::1", 26381)], "service": "mymaster", "db": 2,
                      "username": None, "password": "s@cret", "sentinel_password": "theirs",
                      "socket_timeout": 0.5, "socket_connect_timeout": 1.0}
    assert parse_sentinel_url("redis+sentinel://h1:26379/mymaster")["db"] == 0


@pytest.mark.parametrize("url", [
    "redis+sentinel://h1:26379/", "redis+sentinel:///mymaster/0", "redis+sentinel://h1:port/mymaster/0",
    "redis+sentinel://h1/mymaster/zero", "redis+sentinel://h1/mymaster/0/extra",
    "redis+sentinel://h1/mymaster/0?socket_timeout=soon", "redis+sentinel://h1/mymaster/0?retries=3",
    "memcached://h1:11211/0",
], ids=["no service", "no sentinel", "bad port", "bad db", "extra segment", "bad timeout", "unknown option",
        "another scheme"])
def test_a_url_the_factory_cannot_use_stops_the_start(url):
    with pytest.raises(RedisUrlError):
        redis_connection.connection_pool(url)
    with pytest.raises(ValueError):
        make_store(read_section(RateLimitSettings, {"ratelimit.backend": "redis", "ratelimit.redis_url": url}), None)


def test_a_refused_url_stops_the_start_in_one_line_without_its_password(settings, capsys):
    from clinicrecords import main

    bad = "redis+sentinel://:hunter2@h1:26379/"
    with task_queue.kept(), pytest.raises(SystemExit) as stopped:  # a half-built application configured the queue
        main({}, **{**settings, "ratelimit.backend": "redis", "ratelimit.redis_url": bad})
    line = capsys.readouterr().err
    assert stopped.value.code == 2 and line.count("\n") == 1
    assert "hunter2" not in line and "redis+sentinel://***@h1:26379/: expected" in line


@pytest.fixture(scope="module")
def sentinels(tmp_path_factory):
    group = SentinelGroup(tmp_path_factory.mktemp("sentinel")).start()
    yield group
    group.stop()


@pytest.mark.commits  # the Sentinels, two Redis servers and a thread of requests: nothing in the transaction
def test_the_queue_and_the_rate_limiter_follow_a_failover(settings, sentinels, make_app, world):
    """Huey's storage and the rate limiter come from one factory, and both carry on after the primary is
    SIGKILLed and a Sentinel promotes its replica; meanwhile keyed requests are 503, never 500."""
    key = world.key_row(clinic_id=world.clinic())[1]
    app = webtest.TestApp(make_app(**{"ratelimit.backend": "redis", "ratelimit.redis_url": sentinels.url}),
                          extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    headers = {"Authorization": f"Bearer {key}"}
    tasks.configure(read({**settings, "huey.backend": "redis", "huey.redis_url": sentinels.url,
                          "huey.immediate": "false"}))
    ran.clear()
    try:
        assert app.get("/v1/me", headers=headers).status_int == 200
        note("before")
        tasks.huey.storage.conn.wait(1, 5000)  # WAIT: the replica has it before the primary dies
        statuses, stop = [], threading.Event()

        def call_meanwhile():
            while not stop.is_set():
                statuses.append(app.get("/v1/me", headers=headers, expect_errors=True))

        old = sentinels.kill_primary()
        caller = threading.Thread(target=call_meanwhile)
        caller.start()
        try:
            assert sentinels.failed_over_from(old), "no Sentinel promoted the replica"
            assert sentinels.wait(lambda: app.get("/v1/me", headers=headers, expect_errors=True).status_int == 200,
                                  15)
        finally:
            stop.set()
            caller.join()
        refused = [answer for answer in statuses if answer.status_int != 200]
        assert refused, "no request ran while the primary was gone"
        assert {(a.status_int, a.json["code"], a.headers["Retry-After"]) for a in refused} == {
            (503, "service_unavailable", "2")}
        note("after")
        while tasks.huey.pending_count():
            tasks.huey.execute(tasks.huey.dequeue())
        assert ran == ["before", "after"]
        with redis.Redis(host="127.0.0.1", port=sentinels.primary_port()) as client:
            assert client.info("replication")["role"] == "master" and client.dbsize() > 0
    finally:
        tasks.configure(read(settings))


@pytest.mark.commits  # a Redis server of its own, stopped and started
def test_a_redis_that_is_stopped_or_read_only_is_a_503(tmp_path, make_app, world):
    """A stopped Redis, and one that refuses writes as a demoted primary does (READONLY) when reached without
    Sentinel: 503 problem+json with Retry-After, never 500; 200 again once it takes writes."""
    server = RedisServer(tmp_path / "redis").start()
    replica = RedisServer(tmp_path / "replica", replica_of=server.port).start()
    try:
        key = world.key_row(clinic_id=world.clinic())[1]
        headers = {"Authorization": f"Bearer {key}"}

        def app_on(url):
            return webtest.TestApp(make_app(**{"ratelimit.backend": "redis", "ratelimit.redis_url": url}),
                                   extra_environ={"REMOTE_ADDR": "127.0.0.1"})

        on_server, on_replica = app_on(server.url), app_on(replica.url)
        on_server.get("/v1/me", headers=headers, status=200)
        answer = on_replica.get("/v1/me", headers=headers, status=503)
        assert answer.content_type == "application/problem+json" and answer.json["code"] == "service_unavailable"
        server.stop()
        answer = on_server.get("/v1/me", headers=headers, status=503)
        assert answer.json["code"] == "service_unavailable" and answer.headers["Retry-After"] == "2"
        server.start()
        on_server.get("/v1/me", headers=headers, status=200)
    finally:
        replica.stop()
        server.stop()


def test_every_redis_client_comes_from_the_one_factory():
    """A client built elsewhere would not understand the Sentinel form, nor follow a failover."""
    import pathlib
    import re

    package = pathlib.Path(redis_connection.__file__).parent
    builders = re.compile(r"\bredis\.(Redis|StrictRedis|ConnectionPool|from_url|sentinel)\b|\bRedis(\.from_url)?\("
                          r"|\bSentinel\(|\"url\": queue")
    elsewhere = [f"{path.relative_to(package)}:{number}" for path in package.rglob("*.py")
                 if path.name != "redis_connection.py" and "redis" in path.read_text().lower()
                 for number, line in enumerate(path.read_text().splitlines(), 1)
                 if builders.search(line) and "redis_connection." not in line]
    assert elsewhere == []
