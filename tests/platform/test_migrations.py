"""Control and clinic schemas reach head; a new clinic's schema equals the migrated one; nothing half-made."""

import uuid

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.schema import CreateSchema

from clinicrecords.clinics.models import Clinic
from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic
from clinicrecords.db import migrations
from clinicrecords.db.meta import TenantBase
from clinicrecords.db.tenancy import schema_name


def _schemas(engine):
    return set(inspect(engine).get_schema_names())


def _make_clinic_at_base(engine):
    """A clinic whose schema exists but predates every revision: as an old clinic would be."""
    clinic_id = uuid.uuid4()
    with engine.begin() as connection:
        connection.execute(CreateSchema(schema_name(clinic_id)))
        connection.execute(Clinic.__table__.insert().values(id=clinic_id, name="Old", kind="clinic",
                                                            currency="USD", schema_revision=None))
    return clinic_id


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_migrate_twice_moves_nothing_the_second_time(engine):
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    assert migrations.migrate_all(engine, CLINIC_SCHEMAS) == 0


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_a_clinic_at_an_older_revision_is_brought_to_head_and_recorded(engine):
    clinic_id = _make_clinic_at_base(engine)
    assert migrations.migrate_all(engine, CLINIC_SCHEMAS, workers=2) >= 1
    head = migrations.head("tenant")
    with engine.connect() as connection:
        recorded = connection.execute(select(Clinic.schema_revision).where(Clinic.id == clinic_id)).scalar()
        context = MigrationContext.configure(connection, opts={"version_table_schema": schema_name(clinic_id)})
        assert context.get_current_revision() == head
    assert recorded == head
    assert "patients" in inspect(engine).get_table_names(schema=schema_name(clinic_id))


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_migration_failure_is_reported_and_resumable(engine):
    clinic_id = _make_clinic_at_base(engine)
    with engine.begin() as connection:
        # Sabotage: a table in the way makes the baseline revision fail for this clinic only.
        connection.execute(text(f'CREATE TABLE "{schema_name(clinic_id)}".patients (x int)'))
    with pytest.raises(migrations.MigrationError):
        migrations.migrate_all(engine, CLINIC_SCHEMAS)
    assert clinic_id in migrations.clinics_behind(engine, CLINIC_SCHEMAS)
    with engine.begin() as connection:
        connection.execute(text(f'DROP TABLE "{schema_name(clinic_id)}".patients'))
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    assert clinic_id not in migrations.clinics_behind(engine, CLINIC_SCHEMAS)


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_schema_built_for_a_new_clinic_equals_the_migrated_schema(world, engine):
    built = world.clinic()
    migrated = _make_clinic_at_base(engine)
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    for clinic_id in (built, migrated):
        with engine.connect() as connection:
            connection.execute(text("SELECT set_config('search_path', :s, false)"), {"s": schema_name(clinic_id)})
            context = MigrationContext.configure(connection, opts={
                "include_object": lambda obj, name, type_, reflected, compare_to: name != "alembic_version",
                "compare_type": True,
            })
            assert compare_metadata(context, TenantBase.metadata) == []
            connection.rollback()


def test_a_failed_clinic_creation_leaves_no_schema_and_no_row(world, engine):
    before = _schemas(engine)
    created = {}
    with pytest.raises(RuntimeError):
        with world.db() as db:
            created["id"] = create_clinic(db, "Interrupted").id
            assert schema_name(created["id"]) in set(inspect(db.connection()).get_schema_names())
            raise RuntimeError("the operator's command failed after the schema was built")
    assert _schemas(engine) == before
    with engine.connect() as connection:
        assert connection.execute(select(Clinic.id).where(Clinic.id == created["id"])).all() == []


def test_a_duplicate_clinic_id_is_refused_before_any_schema_is_made(world, engine):
    existing = world.clinic()
    before = _schemas(engine)
    with pytest.raises(IntegrityError):
        with world.db() as db:
            create_clinic(db, "Duplicate", clinic_id=existing)
    assert _schemas(engine) == before


def test_models_have_no_foreign_keys_across_schemas():
    for table in TenantBase.metadata.tables.values():
        for fk in table.foreign_keys:
            assert fk.column.table.schema is None, f"{table.name} references another schema"


def _catalog(engine, schema):
    """Everything a schema holds, as the catalog describes it, with the schema's own name taken out."""
    queries = {
        "columns": """SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                             pg_get_expr(d.adbin, d.adrelid)
                      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                      JOIN pg_namespace n ON n.oid = c.relnamespace
                      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                      WHERE n.nspname = :s AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind = 'r'""",
        "constraints": """SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) FROM pg_constraint k
                          JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                          WHERE n.nspname = :s""",
        "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = :s",
        "relations": """SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE n.nspname = :s""",
        "types": """SELECT t.typname, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                    WHERE n.nspname = :s""",
    }
    with engine.connect() as connection:
        return {name: sorted(tuple(str(v).replace(schema, "<schema>") for v in row)
                             for row in connection.execute(text(sql), {"s": schema}))
                for name, sql in queries.items()}


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_the_compiled_one_batch_build_equals_an_alembic_migrated_schema_in_the_catalog(world, engine):
    built = world.clinic()
    migrated = _make_clinic_at_base(engine)
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    built_catalog, migrated_catalog = _catalog(engine, schema_name(built)), _catalog(engine, schema_name(migrated))
    assert len(built_catalog["columns"]) > 100 and built_catalog["indexes"]
    differences = {name: sorted(set(built_catalog[name]) ^ set(migrated_catalog[name])) for name in built_catalog}
    assert differences == {name: [] for name in built_catalog}
    assert built_catalog == migrated_catalog
    with engine.connect() as connection:
        version = connection.execute(text(f'SELECT version_num FROM "{schema_name(built)}".alembic_version')).all()
    assert version == [(migrations.head("tenant"),)]


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_a_failure_names_every_failed_clinic_and_the_others_are_migrated(engine):
    broken, fine = _make_clinic_at_base(engine), _make_clinic_at_base(engine)
    with engine.begin() as connection:
        connection.execute(text(f'CREATE TABLE "{schema_name(broken)}".patients (x int)'))
    with pytest.raises(migrations.MigrationError) as raised:
        migrations.migrate_all(engine, CLINIC_SCHEMAS, workers=2)
    assert [clinic_id for clinic_id, _ in raised.value.failures] == [broken]
    assert str(broken) in str(raised.value) and str(fine) not in str(raised.value)
    behind = migrations.clinics_behind(engine, CLINIC_SCHEMAS)
    assert broken in behind and fine not in behind
    with engine.begin() as connection:  # the failed clinic's transaction left nothing behind
        tables = inspect(connection).get_table_names(schema=schema_name(broken))
        connection.execute(text(f'DROP TABLE "{schema_name(broken)}".patients'))
    assert tables == ["patients"]
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    assert broken not in migrations.clinics_behind(engine, CLINIC_SCHEMAS)
