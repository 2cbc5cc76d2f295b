"""The database: one engine per process, one session per request joined to pyramid_tm's transaction."""

from contextlib import contextmanager

import orjson
from sqlalchemy import create_engine, event, exc, make_url
from sqlalchemy.orm import Session, sessionmaker

from clinicrecords.db import commit_wait, embedded, joined, request_transaction, security_events
from clinicrecords.db.reconnect import follow_failover
from clinicrecords.db.session_settings import pooler_evidence, startup_options, verify_timeouts
from clinicrecords.settings import SettingsError, app_settings, var_dir

# What this package keeps in the registry: the process's Engine and the sessionmaker of requests' sessions.
ENGINE = "db.engine"
SESSION_FACTORY = "db.session_factory"


def database_url(settings):
    """The URL of `settings.database.url`; `embedded` (DATABASE_URL unset) is the self-contained server under
    the var dir."""
    url = settings.database.url
    if url == "embedded":
        url = embedded.database_url(var_dir(settings), settings.database.name)
    return driver_url(url)


def driver_url(url):
    """SQLAlchemy's psycopg 3 dialect for a plain `postgres://` or `postgresql://` URL."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix):]
    return url


def make_engine(settings, **overrides):
    """The engine `settings` (the typed AppSettings) describe; `overrides` are create_engine's options, and
    `pool_max_uses` (0: never replace a connection)."""
    database = settings.database
    options = {
        "pool_size": database.pool_size,
        "max_overflow": database.max_overflow,
        # A backend caches catalog entries for every schema it touches: recycling bounds that growth.
        "pool_recycle": database.pool_recycle,
        # Seconds a request waits for a free pooled connection before answering 503.
        "pool_timeout": database.pool_timeout,
        # json/jsonb columns are parsed on every read (a page of 100 allergies parses 200 values): orjson
        # builds the same values several times faster than the standard library.
        "json_deserializer": orjson.loads,
        "connect_args": connect_args(settings),
        # A failed statement's error (and so any traceback logged) names its SQL, never the values bound to
        # it: emails, search terms, sealed secrets (clinicrecords/failures.py).
        "hide_parameters": True,
    }
    max_uses = overrides.pop("pool_max_uses", database.pool_max_uses)
    options.update(overrides)
    engine = create_engine(database_url(settings), **options)
    follow_failover(engine)
    commit_wait.bound(engine, database.commit_wait_ms / 1000)
    if max_uses:
        bound_connection_uses(engine, max_uses)
    return engine


# libpq's TCP settings (seconds, tcp_user_timeout in milliseconds), docs/deployment.md.
CONNECTION_LIVENESS = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
                       "tcp_user_timeout": 10_000}


def host_liveness(settings, url):
    """libpq's arguments that bound the wait for a host that is gone (`connect_args` says why)."""
    args = dict(CONNECTION_LIVENESS)
    if "connect_timeout" not in make_url(url).query:
        args["connect_timeout"] = settings.database.connect_timeout
    return args


def connect_args(settings):
    """psycopg's connection arguments.

    Direct to PostgreSQL, the session timeouts travel as the `options` startup parameter (they are also the
    role's defaults, set by `migrate`). Through a transaction pooler, neither can be per connection: the
    pooler refuses `options`, and a statement psycopg prepares on one server connection (`_pg3_0`, named per
    client connection) would be run by another client's request, in another clinic's schema. So there the
    timeouts come from the role's defaults alone and nothing is prepared.

    A host that is gone must not hold a request past the pool's timeout: a connection attempt gives up on a
    host after `database.connect_timeout` and tries the URL's next one (a `connect_timeout` in the URL
    wins); TCP keepalives find a pooled or waiting connection whose host vanished (no RST ever comes) within
    about 25 s, and `tcp_user_timeout` one whose sent statement stays unacknowledged for 10 s. Unix
    sockets ignore the last two."""
    args = {"application_name": settings.database.application_name,
            **host_liveness(settings, database_url(settings))}
    if settings.database.pooled:
        args["prepare_threshold"] = None
    else:
        args["options"] = startup_options(settings)
    return args


# A backend keeps the catalog entries of every clinic schema it has served (tens of KB each); with requests
# spread over thousands of clinics, pool_recycle's 600 s lets one backend touch all of them. Replacing a
# pooled connection after `database.pool_max_uses` checkouts (500 by default) bounds that per backend for
# about one reconnect per 500 requests.
def bound_connection_uses(engine, max_uses):
    """Discard a pooled connection on its checkout number `max_uses` + 1; the pool connects a fresh one."""
    @event.listens_for(engine, "connect")
    def fresh(dbapi_connection, record):
        record.info["uses"] = 0

    @event.listens_for(engine, "checkout")
    def count(dbapi_connection, record, proxy):
        record.info["uses"] = record.info.get("uses", 0) + 1
        if record.info["uses"] > max_uses:
            raise exc.DisconnectionError(f"served {max_uses} checkouts")  # the pool retries on a new one


def check_ready_to_serve(registry):
    """Before a server or worker takes work: behind a pooler, the timeouts must come from the role; without
    `database.pooled`, the database URL must not lead through one (every connection would be refused, or
    share prepared statements between clients)."""
    settings = app_settings(registry)
    if settings.database.pooled:
        verify_timeouts(registry[ENGINE], settings)
    else:
        _refuse_an_unannounced_pooler(registry[ENGINE])


def _refuse_an_unannounced_pooler(engine):
    try:
        reason = pooler_evidence(engine.connect)
    except exc.OperationalError:
        return  # PostgreSQL is not reachable yet: the service starts, answers 503 until it is, as before
    if reason is not None:
        raise SettingsError(f"the database URL leads through a transaction pooler such as PgBouncer ({reason}): "
                            "set database.pooled = true (docs/deployment.md, Running behind PgBouncer)")


@contextmanager
def autocommit_session(engine):
    """A session on a connection of its own, in autocommit, returned to the pool on exit.

    For what a request reads and counts before its own transaction begins (the key, its rate limit): done
    first and released, so a request never holds one pooled connection while it waits for a second (with a
    pool smaller than the thread count, or a pooler with few server connections, that wait can deadlock).
    Entities it loads are detached on exit; attach one to the request's session with merge(load=False)."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        # Its writes (the key's last use) commit one by one: each waits for a synchronous standby.
        with commit_wait.watched(engine, connection.connection.driver_connection):
            with Session(bind=connection, expire_on_commit=False) as session:
                yield session


def _request_db(request):
    session = request_transaction.for_request(request.registry[SESSION_FACTORY], request.tm)

    @request.add_finished_callback
    def close(request):
        session.close()

    return session


def includeme(config):
    engine = make_engine(app_settings(config.registry))
    joined.follow(engine)  # the test suite's rolled-back transaction; nothing unless the suite armed it
    config.registry[ENGINE] = engine
    # Every session knows where security events are appended (clinicrecords/security_events.py).
    config.registry[SESSION_FACTORY] = sessionmaker(
        bind=engine, class_=request_transaction.RequestSession, expire_on_commit=False,
        info={security_events.PATH: str(security_events.path(app_settings(config.registry)))})
    config.add_request_method(_request_db, "db", reify=True)
    # Outside the request's transaction: what it owes apart, written once that transaction has ended.
    config.add_tween("clinicrecords.db.commit_or_apart.commit_or_apart_tween_factory",
                     over="pyramid_tm.tm_tween_factory")
