"""`migrate`'s own connection: straight to PostgreSQL, never through a transaction pooler.

A migration holds a session-level advisory lock for its whole run (two `migrate` runs never overlap), writes
the role's session defaults, and upgrades schemas in long transactions; through a transaction pooler the lock
would be released with the first transaction and the next statement could land on another server connection.
So `migrate` uses `database.direct_url` when it is set, refuses to start without it when `database.pooled` is
true, and proves the connection is direct: a custom setting sent in the startup packet must arrive (a pooler
refuses the `options` parameter, or drops it when told to ignore it: `session_settings.pooler_evidence`).
"""

from contextlib import contextmanager

from sqlalchemy import create_engine, text

from clinicrecords.db import bound_connection_uses, database_url, driver_url, host_liveness
from clinicrecords.db.reconnect import follow_failover
from clinicrecords.db.session_settings import pooler_evidence, startup_options
from clinicrecords.errors import InvalidInput
from clinicrecords.settings import DatabaseSettings

# pg_advisory_lock key held by a `migrate` run from start to end (session level: needs a direct connection).
MIGRATE_LOCK_KEY = 7_202_612

NOT_DIRECT = ("migrate needs a direct connection to PostgreSQL, not one through a transaction pooler "
              "(PgBouncer): set database.direct_url (production.ini: DATABASE_DIRECT_URL) to the server itself; "
              "see docs/deployment.md, Running behind PgBouncer")


def direct_url(settings):
    if settings.database.direct_url:
        return driver_url(settings.database.direct_url)
    if settings.database.pooled:
        raise InvalidInput(NOT_DIRECT + " (database.pooled is true and database.direct_url is not set)")
    return database_url(settings)


def direct_engine(settings):
    """An engine on the direct URL whose every connection carries the probe and the session timeouts."""
    url = direct_url(settings)
    engine = create_engine(url, pool_size=1, max_overflow=2, hide_parameters=True,
                           connect_args={"options": startup_options(settings),
                                         "application_name": "clinicrecords-migrate",
                                         **host_liveness(settings, url)})
    follow_failover(engine)
    bound_connection_uses(engine, DatabaseSettings.pool_max_uses)  # the default: migrate's own few connections
    return engine


def check_direct(connection_factory):
    reason = pooler_evidence(connection_factory)
    if reason is not None:
        raise InvalidInput(f"{NOT_DIRECT} ({reason})")


@contextmanager
def migration_lock(engine):
    """Hold the migrate lock on a connection of its own for the whole run, or refuse at once."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        if not connection.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": MIGRATE_LOCK_KEY}):
            raise InvalidInput("another migrate is running on this database; try again when it has finished")
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATE_LOCK_KEY})


@contextmanager
def migration_engine(settings):
    engine = direct_engine(settings)
    try:
        check_direct(engine.connect)
        yield engine
    finally:
        engine.dispose()

