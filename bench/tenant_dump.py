"""One clinic out of a database of many and into another cluster: `pg_dump -n <schema>` and `pg_restore`.

The binaries are the embedded PostgreSQL's (the pgserver package's, as clinicrecords/db/embedded.py starts
it): pg_dump reads servers older than itself, so they also serve a DATABASE_URL of Debian's PostgreSQL 15.
The other cluster is a throwaway one, initdb'd under the given folder, listening on a Unix socket only,
stopped and deleted afterwards. It gets nothing but an empty database and the roles that own the dump's
objects (read from the dump's table of contents): a restore that succeeds there shows what else a clinic's
schema needs (nothing of the control schema, no extension).
"""

import os
import shutil
import subprocess
import tempfile
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg import sql

RESTORED_DATABASE = "clinicrecords_restored"


def postgres_bin(name):
    from pgserver._commands import POSTGRES_BIN_PATH

    return str(POSTGRES_BIN_PATH / name)


def conninfo(engine):
    """The libpq connection string (and password) of a live connection of `engine`: what pg_dump is given."""
    with engine.connect() as connection:
        info = connection.connection.dbapi_connection.info
        return info.dsn, info.password


def _peak_rss_mb(pid):
    """The process's peak resident memory so far (VmHWM), or None once it has exited."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")), None)


def _run_measured(command, env=None):
    """Run `command`; (wall seconds, peak RSS in MB of the program). Raises with its stderr on failure.

    The peak is sampled from /proc while it runs (VmHWM only grows): the child's rusage would report the
    forking Python process's memory, which the child held until its exec."""
    peak = 0.0
    with tempfile.TemporaryFile("w+") as errors:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        while process.poll() is None:
            peak = max(peak, _peak_rss_mb(process.pid) or 0.0)
            time.sleep(0.01)
        seconds = time.perf_counter() - started
        if process.returncode:
            errors.seek(0)
            raise RuntimeError(f"{os.path.basename(command[0])} exited {process.returncode}: "
                               f"{errors.read().strip()[-800:]}")
    return seconds, peak


def table_rows(connection, schema):
    """Rows of every table of `schema`, by table name."""
    tables = connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename",
                                (schema,)).fetchall()
    return {name: connection.execute(sql.SQL("SELECT count(*) FROM {}.{}").format(
        sql.Identifier(schema), sql.Identifier(name))).fetchone()[0] for (name,) in tables}


def dump_schema(engine, schema, path):
    """`pg_dump --format=custom -n schema` of the database `engine` reaches, to `path`."""
    dsn, password = conninfo(engine)
    env = {**os.environ, **({"PGPASSWORD": password} if password else {})}
    seconds, rss_mb = _run_measured([postgres_bin("pg_dump"), "--format=custom", "--schema", schema,
                                     "--file", str(path), "--dbname", dsn], env=env)
    return {"seconds": round(seconds, 3), "bytes": path.stat().st_size, "pg_dump_max_rss_mb": round(rss_mb, 1)}


def dump_owners(path):
    """The roles that own something in the dump (the last field of each entry of `pg_restore --list`)."""
    listing = subprocess.run([postgres_bin("pg_restore"), "--list", str(path)], check=True, capture_output=True,
                             text=True).stdout
    return sorted({line.split()[-1] for line in listing.splitlines()
                   if line.strip() and not line.startswith(";") and line.split()[-1] != "-"})


@contextmanager
def throwaway_cluster(pgdata):
    """A new PostgreSQL cluster in `pgdata` (initdb, started on a Unix socket), stopped and removed after."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs without XDG_RUNTIME_DIR, as in embedded.py
        import pgserver

    shutil.rmtree(pgdata, ignore_errors=True)  # what an interrupted run left (pgserver stops its server)
    server = pgserver.get_server(pgdata, cleanup_mode="delete")
    try:
        yield server
    finally:
        server.cleanup()


def restore_elsewhere(path, schema, roles, pgdata):
    """Restore the dump at `path` into a throwaway cluster: its set-up, the restore's seconds, the rows."""
    started = time.perf_counter()
    with throwaway_cluster(pgdata) as server:
        setup = time.perf_counter() - started
        with psycopg.connect(server.get_uri(), autocommit=True) as admin:
            for role in roles:
                admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(RESTORED_DATABASE)))
        seconds, _ = _run_measured([postgres_bin("pg_restore"), "--exit-on-error", "--single-transaction",
                                    "--dbname", server.get_uri(RESTORED_DATABASE), str(path)])
        with psycopg.connect(server.get_uri(RESTORED_DATABASE)) as restored:
            rows = table_rows(restored, schema)
    return {"cluster_setup_seconds": round(setup, 2), "seconds": round(seconds, 3), "rows": rows,
            "prepared": [f"role {role}" for role in roles] + ["an empty database"]}


def dump_and_restore(engine, schema, folder):
    """Dump one clinic's schema and restore it into another cluster under `folder`; the source's rows and the
    restored rows must match (`rows_match`)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{schema}.dump"
    with engine.connect() as connection:
        source_rows = table_rows(connection.connection.dbapi_connection, schema)
    try:
        dump = dump_schema(engine, schema, path)
        owners = dump_owners(path)
        restore = restore_elsewhere(path, schema, owners, folder / "pgdata")
    finally:
        path.unlink(missing_ok=True)
    return {"schema": schema, "dump": dump, "restore": {key: value for key, value in restore.items() if key != "rows"},
            "tables": len(source_rows), "rows_source": sum(source_rows.values()),
            "rows_restored": sum(restore["rows"].values()), "rows_match": restore["rows"] == source_rows}
