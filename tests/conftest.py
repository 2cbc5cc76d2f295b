import os
from pathlib import Path

import pytest
import webtest
from pyramid.paster import get_appsettings

from tests.common.serving import serving
from tests.common.workers import worker_ini
from tests.common.world import World

ROOT = Path(__file__).resolve().parents[1]
# Under pytest-xdist each worker (gw0, gw1, ...) has a database of its own on the one embedded cluster, named
# in an ini of its own that everything reading TESTING_INI gets (operator commands, consumers, subprocesses).
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
TESTING_INI = str(worker_ini(ROOT, XDIST_WORKER) if XDIST_WORKER else ROOT / "testing.ini")


# Tests using these fixtures reach the database from other threads or processes: they commit for real.
COMMITTING_FIXTURES = frozenset({"served", "queue_on_disk"})
# Packages whose tests run inside the rolled-back transaction, each listed once it was run whole this way.
# The others commit for real: faults, pooling and the production rehearsal by nature (other processes, killed
# and counted connections, migrate's worker processes), the rest until they are run this way
# (docs/contributing.md, Tests).
ROLLED_BACK_PACKAGES = frozenset({
    "access", "audit", "care_providers", "clinical", "dispensing", "encounters", "patients", "plans",
    "prescriptions", "providers", "review", "scheduling", "security", "insurance", "inventory", "listings",
    "patient_imports", "platform", "client", "reference", "examples", "portal",
    "api", "events", "onboarding", "test_helpers", "request_log", "mail", "notifications",
})


# What a developer's shell may hold for the service they run (`PORT=6599 scripts/serve`, a Redis of their own):
# the suite reads none of it, so it answers the same in any shell (tests/platform/test_suite_environment.py).
CALLERS_SERVICE_ENVIRONMENT = ("PORT", "HOST", "REDIS_URL", "DATABASE_URL")


def pytest_configure(config):
    # The suite owns its address and its stores: an outside DATABASE_URL is only used when named for tests
    # explicitly (CLINICRECORDS_TEST_DATABASE_URL); tests that need a port, a host or a Redis start their own.
    for name in CALLERS_SERVICE_ENVIRONMENT:
        os.environ.pop(name, None)
    if os.environ.get("CLINICRECORDS_TEST_DATABASE_URL"):
        os.environ["DATABASE_URL"] = os.environ["CLINICRECORDS_TEST_DATABASE_URL"]
    config.addinivalue_line("markers", "commits: the test commits for real instead of inside the rolled-back "
                                       "transaction (docs/contributing.md, Tests)")
    from clinicrecords.db import joined

    joined.arm()  # before any application is built: their engines follow the tests' transaction
    if not os.environ.get("DATABASE_URL") and not hasattr(config, "workerinput"):
        # In the one process that runs first (xdist's controller, or the only one), before any test connects.
        from clinicrecords.settings import read, var_dir
        from tests.common.cluster import ensure_test_settings

        ensure_test_settings(var_dir(read(get_appsettings(TESTING_INI, "main"))))


# Packages whose modules build `connected` once and run each test in a savepoint of the module's transaction
# (listed once their tests were seen to pass this way).
MODULE_WORLD_PACKAGES = frozenset({"clinical", "review", "api", "security", "access"})


def _package(item):
    return item.path.relative_to(ROOT / "tests").parts[0]


def shares_module_world(item):
    return _package(item) in MODULE_WORLD_PACKAGES and not commits_for_real(item)


def commits_for_real(item):
    return (item.get_closest_marker("commits") is not None
            or bool(COMMITTING_FIXTURES & set(item.fixturenames))
            or _package(item) not in ROLLED_BACK_PACKAGES)


def pytest_collection_modifyitems(items):
    """In a module sharing one world, its tests that commit for real run first: once the module's transaction
    is open, the rows it wrote (a seeded listing term) would hold their commits waiting."""
    modules = {}
    for item in items:
        modules.setdefault(item.path, len(modules))
    items.sort(key=lambda item: (modules[item.path], not (commits_for_real(item) and _package(item)
                                                          in MODULE_WORLD_PACKAGES)))


@pytest.fixture(scope="session")
def settings():
    return dict(get_appsettings(TESTING_INI, "main"))


@pytest.fixture(scope="session")
def smtp_server():
    """A real SMTP server on 127.0.0.1 for this test process; every application the process builds (and the
    consumers and commands it starts) sends its mail there through CLINICRECORDS_SMTP_URL."""
    from clinicrecords.settings import ENV_SMTP_URL
    from tests.common.mail import SmtpServer

    server = SmtpServer().start()
    saved = os.environ.get(ENV_SMTP_URL)
    os.environ[ENV_SMTP_URL] = server.url
    yield server
    server.stop()
    if saved is None:
        os.environ.pop(ENV_SMTP_URL, None)
    else:
        os.environ[ENV_SMTP_URL] = saved


@pytest.fixture
def mail(request, smtp_server):
    """What the service mailed during this test (tests/common/mail.py: `Inbox`). When a wait ends short, the
    outbox's rows say why (a failed attempt's error, a retry's time) if the test has the database."""
    smtp_server.inbox.clear()
    if "engine" in request.fixturenames or "app" in request.fixturenames:
        from tests.common.mail import outbox_rows

        engine = request.getfixturevalue("engine")
        smtp_server.inbox.explain = lambda: outbox_rows(engine)
    yield smtp_server.inbox
    smtp_server.inbox.explain = None
    smtp_server.inbox.clear()


@pytest.fixture(scope="session")
def app(settings, smtp_server):
    from clinicrecords import make_config
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import embedded, migrations
    from clinicrecords.settings import read, var_dir

    if not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(read(settings)), settings["database.name"])
    wsgi_app = make_config(settings).make_wsgi_app()
    migrations.migrate_all(wsgi_app.registry["db.engine"], CLINIC_SCHEMAS, workers=2, settings=read(settings))
    if not os.environ.get("DATABASE_URL"):
        from tests.common.clock import install_moving_clock

        install_moving_clock(settings)
    yield wsgi_app
    wsgi_app.registry["db.engine"].dispose()


@pytest.fixture(autouse=True)
def task_queue_left_as_found():
    """A test that leaves the process's task queue configured for another application (built in this process
    outside `tests.common.task_queue.kept()`) fails here, not the later tests whose tasks would never run."""
    from tests.common import task_queue

    found = task_queue.configuration()
    yield
    left = task_queue.configuration()
    if left[:3] != found[:3]:
        task_queue.restore(found)
        pytest.fail(f"the task queue was left configured for another application (immediate, storage): "
                    f"{left[:2]} instead of {found[:2]}; build it inside tests.common.task_queue.kept()")


@pytest.fixture(autouse=True)
def rolled_back(request):
    """Everything a database test writes, through any session or connection of the application, is rolled
    back when it ends: in a transaction of its own, or in a savepoint of its module's transaction where the
    module shares one world (`shares_module_world`). Tests that commit for real run as before."""
    if "app" not in request.fixturenames or commits_for_real(request.node):
        yield
        return
    from tests.common.transaction import OuterTransaction

    if shares_module_world(request.node):
        request.getfixturevalue("module_connected")  # built before the test's savepoint, so it outlives it
        with request.getfixturevalue("module_transaction").savepoint():
            yield
    else:
        with OuterTransaction(request.getfixturevalue("engine")) as outer, outer.joined():
            yield


@pytest.fixture(scope="module")
def module_transaction(app):
    """The module's outer transaction, rolled back when the module ends."""
    from tests.common.transaction import OuterTransaction

    with OuterTransaction(app.registry["db.engine"]) as outer:
        yield outer


@pytest.fixture(scope="module")
def module_connected(app, module_transaction):
    """`connected` built once per module in the module's transaction (each test's changes roll back)."""
    with module_transaction.joined():
        return World(app.registry).connected()


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
def connected(request, world):
    """A real clinic connected to a verified, paid workspace, with a live key of that workspace."""
    if shares_module_world(request.node):
        return request.getfixturevalue("module_connected")
    return world.connected()


@pytest.fixture
def make_app(settings):
    """Build another application (other settings) without disturbing the suite's own."""
    from clinicrecords import make_config
    from tests.common import task_queue

    built = []

    def make(**overrides):
        wsgi_app = make_config(dict(settings, **overrides)).make_wsgi_app()
        built.append(wsgi_app)
        return wsgi_app

    with task_queue.kept():
        yield make
    for wsgi_app in built:
        wsgi_app.registry["db.engine"].dispose()


@pytest.fixture
def queue_on_disk(settings, tmp_path):
    """This process and the consumers share a SQLite queue under tmp_path (the suite's own is in memory)."""
    from clinicrecords import tasks
    from clinicrecords.settings import read

    overrides = {"huey.backend": "sqlite", "huey.immediate": "false", "clinicrecords.var": str(tmp_path),
                 "huey.sqlite_path": str(tmp_path / "huey.db")}
    tasks.configure(read({**settings, **overrides}))
    try:
        yield tmp_path
    finally:
        tasks.configure(read(settings))


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
