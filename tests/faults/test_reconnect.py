"""The reconnect path, against the suite's real PostgreSQL: what a process does when the server behind its pooled
connections goes away (a primary killed and a standby promoted, a restart, a backend terminated), or turns out
to be read-only (a standby), or never answers (a host frozen or gone from the network).

A dead connection in the pool is replaced, never handed to the next request: the first request to meet one
answers 503 at most, every connection of the pool opened before it is dropped, and the next request runs on a
fresh connection. The failover rehearsal (`scripts/rehearse --failover`) shows the same with a real standby
promoted."""

import socket
import threading
import time
import uuid

import pytest
from sqlalchemy import text
from webtest import TestApp

from clinicrecords.patients.schemas import PatientCreate

POOL = 4


def _assert_clean_503(response):
    assert response.status_int == 503, response.text
    assert response.content_type == "application/problem+json"
    assert response.json["code"] == "service_unavailable" and response.headers["Retry-After"]


@pytest.fixture
def named():
    """An application name of this test's own, to find its backends in pg_stat_activity."""
    return f"reconnect-{uuid.uuid4().hex[:12]}"


def _fill_pool(wsgi_app, count=POOL):
    """Open `count` connections at once, so the pool holds that many idle ones."""
    engine = wsgi_app.registry["db.engine"]
    held = [engine.connect() for _ in range(count)]
    for connection in held:
        connection.exec_driver_sql("SELECT 1")
    for connection in held:
        connection.close()
    return engine


def _terminate(engine, application_name):
    """pg_terminate_backend on every backend of `application_name`: what the clients see of a server killed."""
    with engine.connect() as admin:
        pids = admin.scalars(text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
                             {"name": application_name}).all()
        for pid in pids:
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        admin.commit()
    return len(pids)


def _backends(engine, application_name):
    with engine.connect() as admin:
        return set(admin.scalars(text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
                                 {"name": application_name}))


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_dead_pooled_connections_are_replaced_not_reused(make_app, engine, connected, named, method):
    wsgi_app = make_app(**{"database.pool_size": str(POOL), "database.max_overflow": "0",
                           "database.application_name": named})
    app = TestApp(wsgi_app)
    patients = f"/v1/clinics/{connected.clinic_id}/patients"
    assert app.get(patients, headers=connected.headers).status_int == 200  # the key is cached from here on
    _fill_pool(wsgi_app)
    before = _backends(engine, named)
    assert len(before) == POOL and _terminate(engine, named) == POOL

    def send():
        if method == "GET":
            return app.get(patients, headers=connected.headers, status="*")
        return app.post_json(patients, dict(PatientCreate.EXAMPLE, external_id=str(uuid.uuid4())), status="*",
                             headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())})

    statuses = [send().status_int for _ in range(POOL + 2)]
    expected = 200 if method == "GET" else 201
    # The one that met the first dead connection may answer 503; every later one runs on a fresh connection.
    assert statuses[1:] == [expected] * (POOL + 1), statuses
    assert statuses[0] in (503, expected)
    assert not _backends(engine, named) & before


def test_a_read_only_server_is_503_and_its_connections_are_dropped(make_app, engine, connected, named):
    """A connection that reached a standby (or a server put in read-only mode) answers writes 503, as a server
    gone would, and is not reused: the next request connects anew, here to a server that writes again."""
    wsgi_app = make_app(**{"database.pool_size": "2", "database.max_overflow": "0",
                           "database.application_name": named})
    app = TestApp(wsgi_app)
    patients = f"/v1/clinics/{connected.clinic_id}/patients"
    database = wsgi_app.registry["db.engine"].url.database

    def create():
        return app.post_json(patients, dict(PatientCreate.EXAMPLE, external_id=str(uuid.uuid4())), status="*",
                             headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())})

    def read_only(on):
        with engine.connect() as admin:
            value = "on" if on else "DEFAULT"
            admin.execute(text(f'ALTER ROLE CURRENT_USER IN DATABASE "{database}" '
                               f"SET default_transaction_read_only = {value}"))
            admin.commit()

    try:
        read_only(True)
        _fill_pool(wsgi_app, 2)  # connections opened while the server is read-only
        refused = create()
    finally:
        read_only(False)
    _assert_clean_503(refused)
    assert [create().status_int for _ in range(3)] == [201, 201, 201]


class FrozenHost:
    """A TCP listener that accepts connections and never answers: a host that froze, or whose PostgreSQL stopped
    while its kernel still completes handshakes."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = self.socket.getsockname()[1]

    def close(self):
        self.socket.close()


@pytest.fixture
def frozen_host():
    host = FrozenHost()
    yield host
    host.close()


def test_a_frozen_first_host_is_passed_over_within_the_connect_timeout(make_app, engine, connected, frozen_host):
    """The multi-host DATABASE_URL: the frozen host first, then the real server. Without a connect timeout the
    connection attempt would wait for the frozen host for minutes; with the service's default it moves on."""
    real = engine.url
    socket_dir = real.query["host"]
    url = (f"postgresql://{real.username}@/{real.database}?host=127.0.0.1:{frozen_host.port}"
           f"&host={socket_dir}:{real.port or 5432}&target_session_attrs=read-write")
    app = TestApp(make_app(database_url=url, **{"database.connect_timeout": "1"}))
    answers = []
    thread = threading.Thread(target=lambda: answers.append(
        app.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers, status="*")), daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(20)
    assert answers and answers[0].status_int == 200, "the request still waits for the frozen host"
    assert time.monotonic() - started < 10
