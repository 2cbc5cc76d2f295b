"""Schema lifecycle: the control schema, one schema per clinic, and bringing all of them to head.

A new clinic's schema is built from the current models and stamped at head in one transaction (never by
replaying history): the tenant DDL is compiled once per process and sent as one batch. Existing schemas are
upgraded by Alembic, one transaction per clinic, in a bounded pool of worker processes (Alembic's `op` proxy
is process-global, so threads cannot share it); each worker loads the revision scripts once and keeps one
connection.

The platform does not know where clinics are listed: the caller passes a `TenantCatalog` (the clinics
context's `clinicrecords.clinics.services.CLINIC_SCHEMAS`), and the composition root loads every context's
models before the first schema is built (`clinicrecords.make_config`, the Alembic env.py files).
"""

import functools
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Protocol

from alembic import command
from alembic.config import Config
from alembic.runtime.environment import EnvironmentContext
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, create_mock_engine, text
from sqlalchemy.schema import CreateSchema, CreateTable

from clinicrecords.db.meta import CONTROL_SCHEMA, TenantBase
from clinicrecords.db.session_settings import set_role_defaults
from clinicrecords.db.tenancy import schema_name

ALEMBIC_DIR = Path(__file__).resolve().parents[2] / "alembic"
LOCK_TIMEOUT = "5s"
MIGRATION_STATEMENT_TIMEOUT = "300s"
# pg_advisory_xact_lock key so that two `migrate` runs never work on the control schema at once.
CONTROL_LOCK_KEY = 7_202_611


class TenantCatalog(Protocol):
    """Which clinics have a schema and the revision each was last brought to. Picklable: it travels to the
    worker processes."""

    def behind(self, connection, revision):
        """The ids of the clinics whose schema is not at `revision`, oldest first."""

    def record(self, connection, clinic_id, revision):
        """Note that the clinic's schema is now at `revision` (in the caller's transaction)."""


def alembic_config(target, connection, schema=None, script_location=None, settings=None):
    config = Config()
    config.set_main_option("script_location", str(script_location or ALEMBIC_DIR / target))
    config.attributes["connection"] = connection
    config.attributes["schema"] = schema
    # The application's typed settings (AppSettings), for revisions that need a key (c15_webhook_secret_crypto
    # seals secrets).
    config.attributes["settings"] = settings
    return config


@functools.lru_cache(maxsize=8)
def _scripts(target, script_location=None):
    """The revision scripts, read once per process (reading them costs more than a one-column revision)."""
    return ScriptDirectory.from_config(alembic_config(target, None, script_location=script_location))


def head(target, script_location=None):
    return _scripts(target, script_location).get_current_head()


def prepare_migration_transaction(connection, schema):
    """Bounded waits, and a transaction-local search_path so raw SQL in revisions lands in `schema`."""
    connection.execute(text("SELECT set_config('lock_timeout', :value, true)"), {"value": LOCK_TIMEOUT})
    connection.execute(text("SELECT set_config('statement_timeout', :value, true)"),
                       {"value": MIGRATION_STATEMENT_TIMEOUT})
    connection.execute(text("SELECT set_config('search_path', quote_ident(:schema), true)"), {"schema": schema})


@functools.lru_cache(maxsize=4)
def tenant_ddl(dialect):
    """The DDL of a clinic schema at head, compiled once per process: what `create_all` would send, table by
    table in dependency order, plus Alembic's version table and its stamp. Names are unqualified; it runs
    under a transaction-local search_path of the new schema. Returns (sql, head revision).

    `dialect` is a connected engine's: what it renders depends on the server version (SMALLSERIAL). Every
    context's models must be loaded by then (module docstring)."""
    statements = []
    mock = create_mock_engine("postgresql+psycopg://", lambda ddl, *args, **kwargs: statements.append(
        str(ddl.compile(dialect=dialect)).strip()))
    TenantBase.metadata.create_all(mock, checkfirst=False)
    revision = head("tenant")
    version = MigrationContext.configure(dialect_name="postgresql")._version  # Alembic's own table definition
    statements.append(str(CreateTable(version).compile(dialect=dialect)).strip())
    statements.append(f"INSERT INTO alembic_version (version_num) VALUES ('{revision}')")
    return ";\n".join(statements) + ";", revision


def create_tenant_schema(connection, clinic_id):
    """Build a clinic's schema at head inside the caller's transaction: all of it or none of it.

    One round trip for the whole DDL instead of one per table and index (about 80): psycopg sends a query
    without parameters with the simple protocol, which accepts several statements."""
    schema = schema_name(clinic_id)
    sql, revision = tenant_ddl(connection.dialect)
    connection.execute(CreateSchema(schema))
    prepare_migration_transaction(connection, schema)
    with connection.connection.cursor() as cursor:  # the same DBAPI connection: the caller's transaction
        cursor.execute(sql)
    return revision


def migrate_control(engine, settings=None):
    """Bring the control schema to head. Returns 1 when it moved, 0 when it was already there."""
    with engine.begin() as connection:
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CONTROL_LOCK_KEY})
        connection.execute(CreateSchema(CONTROL_SCHEMA, if_not_exists=True))
        context = MigrationContext.configure(connection, opts={"version_table_schema": CONTROL_SCHEMA})
        before = context.get_current_revision()
        prepare_migration_transaction(connection, CONTROL_SCHEMA)
        command.upgrade(alembic_config("control", connection, CONTROL_SCHEMA, settings=settings), "head")
        if settings is not None:
            set_role_defaults(connection, settings)
        return int(before != head("control"))


def upgrade_schema(connection, schema, script):
    """Upgrade one clinic schema to head inside the caller's transaction; returns its revision.

    What `alembic upgrade heads` does, without re-reading env.py and the revision scripts for every clinic:
    the scripts are read once per process (`_scripts`). Revisions use `op` as usual."""
    return _run_revisions(connection, schema, script, "heads", script._upgrade_revs)


def downgrade_schema(connection, schema, script, destination):
    """Downgrade one clinic schema to `destination` inside the caller's transaction, as `upgrade_schema` upgrades
    it; returns its revision, or raises when the scripts did not reach it. The operator never downgrades: the
    tenant-scale benchmark takes its throwaway revision off the schemas it keeps."""
    revision = _run_revisions(connection, schema, script, destination, script._downgrade_revs)
    if revision != destination:
        raise RuntimeError(f"{schema} stopped at {revision}, not {destination}")
    return revision


def _run_revisions(connection, schema, script, destination, revisions):
    config = alembic_config("tenant", connection, schema, script_location=script.dir)
    with EnvironmentContext(config, script, destination_rev=destination,
                            fn=lambda revision, context: revisions(destination, revision)) as environment:
        environment.configure(connection=connection, version_table_schema=schema)
        with environment.begin_transaction():  # inside the caller's transaction: no commit of its own
            environment.run_migrations()
        return environment.get_context().get_current_revision()


def _migrate_one(url, clinics, clinic_id, script_location=None, downgrade_to=None):
    """Upgrade one clinic's schema (or downgrade it to `downgrade_to`) and record its revision, in one
    transaction. Runs in a worker process."""
    engine = _worker_engine(url)
    schema = schema_name(clinic_id)
    script = _scripts("tenant", script_location)
    with engine.begin() as connection:
        prepare_migration_transaction(connection, schema)
        if downgrade_to is None:
            revision = upgrade_schema(connection, schema, script)
        else:
            revision = downgrade_schema(connection, schema, script, downgrade_to)
        clinics.record(connection, clinic_id, revision)
    _worker_used[url] = _worker_used.get(url, 0) + 1
    if _worker_used[url] % WORKER_CONNECTION_CLINICS == 0:
        engine.dispose()  # a backend caches catalog entries of every schema it touched: start a fresh one
    return clinic_id


def downgrade_clinic(url, clinics, clinic_id, destination, script_location):
    """One clinic's schema down to `destination` by the revisions in `script_location`, with its recorded
    revision, in one transaction; a worker of the tenant-scale benchmark, as `_migrate_one` is migrate_all's."""
    return _migrate_one(url, clinics, clinic_id, script_location, downgrade_to=destination)


# One kept connection per worker (a new one per clinic cost more than a one-column revision), replaced after
# this many clinics so the backend's relcache stays bounded.
WORKER_CONNECTION_CLINICS = 200
_engines = {}
_worker_used = {}


def _worker_engine(url):
    # By process too: a worker forked from a process that migrated a clinic itself never uses its connection.
    key = (os.getpid(), url)
    if key not in _engines:
        _engines[key] = create_engine(url, pool_size=1, max_overflow=0, hide_parameters=True)
    return _engines[key]


def clinics_behind(engine, clinics, script_location=None):
    """The ids of the clinics in the catalog `clinics` whose schema is not at head."""
    with engine.connect() as connection:
        return list(clinics.behind(connection, head("tenant", script_location)))


def migrate_all(engine, clinics, workers=2, progress=None, script_location=None, settings=None):
    """Control schema, then every clinic of the catalog `clinics` not at head. Resumable: a failure leaves
    finished clinics done.

    Returns the number of schemas that moved (0 when everything was already at head). Raises MigrationError
    naming every clinic that failed after all the others were tried. `script_location` replaces the tenant
    revision scripts (the tenant-scale benchmark adds a throwaway revision that way).
    """
    moved = migrate_control(engine, settings)
    pending = clinics_behind(engine, clinics, script_location)
    if not pending:
        return moved
    _scripts("tenant", script_location)  # read once here: forked workers inherit it
    url = engine.url.render_as_string(hide_password=False)
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    failures = []
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context) as pool:
        futures = {pool.submit(_migrate_one, url, clinics, clinic_id, script_location): clinic_id
                   for clinic_id in pending}
        for done, future in enumerate(as_completed(futures), start=1):
            try:
                future.result()
                moved += 1
            except Exception as exc:  # reported together below; the other clinics still finish
                failures.append((futures[future], exc))
            if progress:
                progress(done, len(pending))
    if failures:
        raise MigrationError(failures)
    return moved


class MigrationError(RuntimeError):
    """Some clinic schemas failed; `failures` is [(clinic_id, exception)], and the message names them all."""

    def __init__(self, failures):
        self.failures = failures
        named = "; ".join(f"{clinic_id}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                          for clinic_id, exc in failures)
        super().__init__(f"{len(failures)} clinic schema(s) failed to migrate (each rolled back, the others "
                         f"are done; run migrate again after fixing): {named}")
