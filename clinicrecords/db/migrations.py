"""Schema lifecycle: the control schema, one schema per clinic, and bringing all of them to head.

A new clinic's schema is built from the current models and stamped at head in one transaction (never by
replaying history). Existing schemas are upgraded by Alembic, one transaction per clinic, in a bounded
pool of worker processes (Alembic's `op` proxy is process-global, so threads cannot share it).
"""

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, select, text, update
from sqlalchemy.pool import NullPool
from sqlalchemy.schema import CreateSchema

from clinicrecords.db.meta import CONTROL_SCHEMA, TenantBase
from clinicrecords.db.tenancy import schema_name

ALEMBIC_DIR = Path(__file__).resolve().parents[2] / "alembic"
LOCK_TIMEOUT = "5s"
MIGRATION_STATEMENT_TIMEOUT = "300s"
# pg_advisory_xact_lock key so that two `migrate` runs never work on the control schema at once.
CONTROL_LOCK_KEY = 7_202_611


def alembic_config(target, connection, schema=None, settings=None):
    config = Config()
    config.set_main_option("script_location", str(ALEMBIC_DIR / target))
    config.attributes["connection"] = connection
    config.attributes["schema"] = schema
    # The application's settings, for revisions that need a key (c15_webhook_secret_crypto seals secrets).
    config.attributes["settings"] = settings
    return config


def head(target):
    return ScriptDirectory.from_config(alembic_config(target, None)).get_current_head()


def prepare_migration_transaction(connection, schema):
    """Bounded waits, and a transaction-local search_path so raw SQL in revisions lands in `schema`."""
    connection.execute(text("SELECT set_config('lock_timeout', :value, true)"), {"value": LOCK_TIMEOUT})
    connection.execute(text("SELECT set_config('statement_timeout', :value, true)"),
                       {"value": MIGRATION_STATEMENT_TIMEOUT})
    connection.execute(text("SELECT set_config('search_path', quote_ident(:schema), true)"), {"schema": schema})


def create_tenant_schema(connection, clinic_id):
    """Build a clinic's schema at head inside the caller's transaction: all of it or none of it."""
    schema = schema_name(clinic_id)
    connection.execute(CreateSchema(schema))
    prepare_migration_transaction(connection, schema)
    TenantBase.metadata.create_all(connection.execution_options(schema_translate_map={None: schema}))
    script = ScriptDirectory.from_config(alembic_config("tenant", connection, schema))
    MigrationContext.configure(connection, opts={"version_table_schema": schema}).stamp(script, "heads")
    return script.get_current_head()


def migrate_control(engine, settings=None):
    """Bring the control schema to head. Returns 1 when it moved, 0 when it was already there."""
    from alembic import command

    with engine.begin() as connection:
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CONTROL_LOCK_KEY})
        connection.execute(CreateSchema(CONTROL_SCHEMA, if_not_exists=True))
        context = MigrationContext.configure(connection, opts={"version_table_schema": CONTROL_SCHEMA})
        before = context.get_current_revision()
        prepare_migration_transaction(connection, CONTROL_SCHEMA)
        command.upgrade(alembic_config("control", connection, CONTROL_SCHEMA, settings), "head")
        return int(before != head("control"))


def _migrate_one(url, clinic_id):
    """Upgrade one clinic's schema and record its revision, in one transaction. Runs in a worker process."""
    from alembic import command

    from clinicrecords.clinics.models import Clinic

    engine = _worker_engine(url)
    schema = schema_name(clinic_id)
    with engine.begin() as connection:
        prepare_migration_transaction(connection, schema)
        command.upgrade(alembic_config("tenant", connection, schema), "head")
        revision = MigrationContext.configure(connection, opts={"version_table_schema": schema}).get_current_revision()
        connection.execute(update(Clinic).where(Clinic.id == clinic_id).values(schema_revision=revision))
    return clinic_id


_engines = {}


def _worker_engine(url):
    if url not in _engines:
        _engines[url] = create_engine(url, poolclass=NullPool)
    return _engines[url]


def clinics_behind(engine):
    from clinicrecords.clinics.models import Clinic

    target = head("tenant")
    with engine.connect() as connection:
        rows = connection.execute(
            select(Clinic.id).where((Clinic.schema_revision != target) | Clinic.schema_revision.is_(None))
            .order_by(Clinic.created_at)
        )
        return [row.id for row in rows]


def migrate_all(engine, workers=2, progress=None, settings=None):
    """Control schema, then every clinic not at head. Resumable: a failure leaves finished clinics done.

    Returns the number of schemas that moved (0 when everything was already at head).
    """
    moved = migrate_control(engine, settings)
    pending = clinics_behind(engine)
    if not pending:
        return moved
    url = engine.url.render_as_string(hide_password=False)
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    failures = []
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context) as pool:
        futures = {pool.submit(_migrate_one, url, clinic_id): clinic_id for clinic_id in pending}
        for done, future in enumerate(as_completed(futures), start=1):
            try:
                future.result()
                moved += 1
            except Exception as exc:  # reported together below; the other clinics still finish
                failures.append((futures[future], exc))
            if progress:
                progress(done, len(pending))
    if failures:
        clinic_id, exc = failures[0]
        raise MigrationError(f"{len(failures)} clinic schema(s) failed to migrate; first: {clinic_id}: {exc}")
    return moved


class MigrationError(RuntimeError):
    pass
