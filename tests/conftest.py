import os
from pathlib import Path

import pytest
import webtest
from pyramid.paster import get_appsettings

from tests.common.serving import serving
from tests.common.world import World

ROOT = Path(__file__).resolve().parents[1]
TESTING_INI = str(ROOT / "testing.ini")


def pytest_configure(config):
    # The suite owns its database: an outside DATABASE_URL is only used when named for tests explicitly.
    os.environ.pop("DATABASE_URL", None)
    if os.environ.get("CLINICRECORDS_TEST_DATABASE_URL"):
        os.environ["DATABASE_URL"] = os.environ["CLINICRECORDS_TEST_DATABASE_URL"]


@pytest.fixture(scope="session")
def settings():
    return dict(get_appsettings(TESTING_INI, "main"))


@pytest.fixture(scope="session")
def app(settings):
    from clinicrecords import make_config
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import embedded, migrations
    from clinicrecords.settings import var_dir

    if not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(settings), settings["database.name"])
    wsgi_app = make_config(settings).make_wsgi_app()
    migrations.migrate_all(wsgi_app.registry["db.engine"], CLINIC_SCHEMAS, workers=2, settings=settings)
    yield wsgi_app
    wsgi_app.registry["db.engine"].dispose()


@pytest.fixture
def registry(app):
    return app.registry


@pytest.fixture
def engine(app):
    return app.registry["db.engine"]


@pytest.fixture(scope="session")
def connection_watch(app):
    from tests.common.connections import ConnectionWatch

    watch = ConnectionWatch(app.registry["db.engine"])
    yield watch
    watch.close()


@pytest.fixture
def testapp(app, connection_watch):
    """Every request through it is watched: it may never hold two pooled connections at once."""
    connection_watch.assert_one_at_a_time()  # what a test without this fixture left behind is not ours
    yield webtest.TestApp(connection_watch.wrap(app), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    connection_watch.assert_one_at_a_time()


@pytest.fixture
def served(app):
    """The real application on 127.0.0.1, as `scripts/serve` runs it."""
    with serving(app) as url:
        yield url


@pytest.fixture
def world(app):
    return World(app.registry)


@pytest.fixture
def connected(world):
    """A real clinic connected to a verified, paid workspace, with a live key of that workspace."""
    return world.connected()


@pytest.fixture
def make_app(settings):
    """Build another application (other settings) without disturbing the suite's own."""
    from clinicrecords import make_config, tasks

    saved = dict(tasks._state)
    built = []

    def make(**overrides):
        wsgi_app = make_config(dict(settings, **overrides)).make_wsgi_app()
        built.append(wsgi_app)
        return wsgi_app

    yield make
    tasks._state.update(saved)
    for wsgi_app in built:
        wsgi_app.registry["db.engine"].dispose()


@pytest.fixture
def queue_on_disk(settings, tmp_path):
    """This process and the consumers share a SQLite queue under tmp_path (the suite's own is in memory)."""
    from clinicrecords import tasks

    overrides = {"huey.backend": "sqlite", "huey.immediate": "false", "clinicrecords.var": str(tmp_path),
                 "huey.sqlite_path": str(tmp_path / "huey.db")}
    tasks.configure({**settings, **overrides})
    try:
        yield tmp_path
    finally:
        tasks.configure(settings)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A real redis-server on a free loopback port with its own data folder (append-only, as in production)."""
    from tests.common.redis_server import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server):
    """The session's Redis, emptied for this test."""
    with redis_server.client() as client:
        client.flushall()
    return redis_server.url
