"""The Citus shape (decision 0081; docs/scale-out.md): nothing in the migrated catalogs or in the statements a
request sends that Citus schema-based sharding would refuse, checked on the embedded PostgreSQL since no Citus
package installs here.

- The real migrated catalogs (the control schema at head, clinics built as a new clinic is, and a clinic schema
  migrated through every tenant revision): foreign keys (pg_constraint) within one clinic schema, from a clinic
  schema only to a reference table, never from a reference table to a local one nor into a clinic schema; and a
  primary key on every clinic table.
- Statements (every one the documented API sends for its examples, recorded through the real stack): each names
  at most one clinic schema, and the control tables it names beside one are reference tables.

Each check is shown failing on a deliberately bad migration or statement in this module."""

import contextlib
import re
import uuid
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateSchema

from clinicrecords.api.openapi import document
from clinicrecords.db import migrations, tenancy
from clinicrecords.db.meta import TenantBase
from clinicrecords.db.tenancy import SCHEMA_PREFIX, schema_name

# The control tables docs/scale-out.md makes reference tables (`create_reference_table`): those a statement
# that reads or writes a clinic schema also names, those a clinic schema's foreign keys reference, and those their
# own foreign keys reference. None today: no request's statement names a clinic schema and a control table.
REFERENCE_TABLES = frozenset()
SCALE_OUT = Path(__file__).resolve().parents[2] / "docs" / "scale-out.md"
CLINIC_SCHEMA = re.compile(rf'"?({SCHEMA_PREFIX}[0-9a-f]{{32}})"?\.')
CONTROL_TABLE = re.compile(r'"?control"?\."?([a-z_]+)"?')

_WITHOUT_PRIMARY_KEY = text("""
SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname LIKE :prefix
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p')
""")
_FOREIGN_KEYS = text("""
SELECT k.conname, fn.nspname, f.relname, tn.nspname, t.relname
FROM pg_constraint k
JOIN pg_class f ON f.oid = k.conrelid JOIN pg_namespace fn ON fn.oid = f.relnamespace
JOIN pg_class t ON t.oid = k.confrelid JOIN pg_namespace tn ON tn.oid = t.relnamespace
WHERE k.contype = 'f'
""")


def _is_clinic(schema):
    return schema.startswith(SCHEMA_PREFIX)


def catalog_refusals(connection, reference_tables=REFERENCE_TABLES):
    """What in the catalogs Citus would refuse once the clinic schemas are distributed, with why: foreign keys,
    and clinic tables without a primary key (`citus_schema_move` copies a clinic by logical replication, which
    needs one to carry updates and deletes while the clinic stays writable)."""
    refusals = [f"{schema}.{table}: no primary key" for schema, table in connection.execute(
        _WITHOUT_PRIMARY_KEY, {"prefix": SCHEMA_PREFIX + "%"})]
    for name, from_schema, from_table, to_schema, to_table in connection.execute(_FOREIGN_KEYS):
        source, target = f"{from_schema}.{from_table}", f"{to_schema}.{to_table}"
        reason = None
        if _is_clinic(from_schema) and _is_clinic(to_schema):
            reason = None if from_schema == to_schema else "across two clinic schemas"
        elif _is_clinic(from_schema):
            reason = None if target in reference_tables else "from a clinic schema to a table not a reference table"
        elif _is_clinic(to_schema):
            reason = "into a clinic schema from outside it"
        elif source in reference_tables and target not in reference_tables:
            reason = "from a reference table to a local one"
        if reason:
            refusals.append(f"{name}: {source} -> {target}: {reason}")
    return refusals


def statement_refusals(statements, reference_tables=REFERENCE_TABLES):
    """Each statement that names two clinic schemas, or a clinic schema and a control table that is not a
    reference table, with why."""
    refusals = []
    for statement in statements:
        clinics = set(CLINIC_SCHEMA.findall(statement))
        if len(clinics) > 1:
            refusals.append(f"names {len(clinics)} clinic schemas: {statement[:300]}")
        elif clinics:
            local = {f"control.{table}" for table in CONTROL_TABLE.findall(statement)} - reference_tables
            if local:
                refusals.append(f"names a clinic schema and {sorted(local)}: {statement[:300]}")
    return refusals


# A table named after FROM, JOIN, INTO or UPDATE without a schema: PostgreSQL finds it in the search_path.
_UNQUALIFIED = re.compile(r'\b(FROM|JOIN|INTO|UPDATE)\s+"?([a-z_]+)"?(?=[\s,;)]|$)')


@contextlib.contextmanager
def recorded_statements():
    """Every statement any engine of this process sends while inside, as PostgreSQL resolves its tables: a
    clinic's tables are named without a schema and found through the search_path its transaction was pointed
    at (db/tenancy.py), so each is recorded with that schema written in."""
    statements, pointed = [], {}
    tenant_tables = set(TenantBase.metadata.tables)
    point_at = tenancy.point_at

    def point(connection, schema, *before, **guard):
        pointed[id(connection)] = (connection, schema)
        return point_at(connection, schema, *before, **guard)

    def record(conn, cursor, statement, parameters, context, executemany):
        connection, schema = pointed.get(id(conn), (None, None))
        if connection is conn:
            statement = _UNQUALIFIED.sub(
                lambda found: f'{found[1]} "{schema}".{found[2]}' if found[2] in tenant_tables else found[0],
                statement)
        statements.append(statement)

    tenancy.point_at = point
    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(Engine, "before_cursor_execute", record)
        tenancy.point_at = point_at


def _migrated_through_every_revision(connection):
    """A clinic schema as the oldest clinic's is today: created empty, then every tenant revision run on it."""
    schema = schema_name(uuid.uuid4())
    connection.execute(CreateSchema(schema))
    migrations.prepare_migration_transaction(connection, schema)
    migrations.upgrade_schema(connection, schema, migrations._scripts("tenant"))
    return schema


def test_the_migrated_catalogs_hold_nothing_citus_refuses(world, engine):
    built = [schema_name(world.clinic()), schema_name(world.clinic(seed=True))]
    with engine.begin() as connection:
        migrated = _migrated_through_every_revision(connection)
        schemas = {row[0] for row in connection.execute(text(
            "SELECT DISTINCT n.nspname FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE k.contype = 'f'"))}
        assert {"control", migrated, *built} <= schemas, "the catalogs checked hold these schemas' keys"
        assert catalog_refusals(connection) == []


_BAD_KEY = 'ALTER TABLE {} ADD CONSTRAINT bad FOREIGN KEY (id) REFERENCES {} (id)'
BAD_MIGRATIONS = {
    "across clinic schemas": _BAD_KEY.format('"{a}".patients', '"{b}".patients'),
    "to a control table that is not a reference table": _BAD_KEY.format('"{a}".patients', "control.workspaces"),
    "into a clinic schema": _BAD_KEY.format("control.workspaces", '"{a}".patients'),
    "a clinic table without a primary key": 'CREATE TABLE "{a}".bad (id uuid)',
}


@pytest.mark.parametrize("ddl", BAD_MIGRATIONS.values(), ids=BAD_MIGRATIONS.keys())
def test_the_catalog_check_fails_on_a_deliberately_bad_migration(world, engine, ddl):
    first, second = schema_name(world.clinic()), schema_name(world.clinic())
    with engine.connect() as connection:
        bad = connection.begin()
        # NOT VALID: the bad key exists in the catalog without checking the rows already there
        connection.execute(text(ddl.format(a=first, b=second) + (" NOT VALID" if "FOREIGN" in ddl else "")))
        [refusal] = catalog_refusals(connection)
        bad.rollback()
        assert catalog_refusals(connection) == []
    assert refusal.startswith("bad: ") or refusal == f"{first}.bad: no primary key"


def _api_calls(registry):
    """(method, path template, operation) of every documented operation."""
    for path, methods in document(registry)["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def _url(path, operation, clinic_id):
    values = {}
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            values[parameter["name"]] = str(clinic_id) if parameter["name"] == "clinic_id" else parameter["example"]
    return path.format(**values)


def test_each_statement_of_the_documented_requests_names_at_most_one_clinic(world, testapp, registry):
    """Every documented operation, called as its example calls it in a sandbox (writes with their example bodies,
    reads of the sandbox's example records), every statement recorded: each names at most one clinic schema, and
    so does each request as a whole (one clinic's node serves it)."""
    workspace_id, sandbox = world.workspace()
    test_key = world.key(workspace_id=workspace_id, mode="test")
    own_clinic = world.clinic(seed=True)
    clinic_key = world.key(clinic_id=own_clinic)
    every, answered, statuses, per_request = [], 0, {}, {}
    for method, path, operation in _api_calls(registry):
        clinic_id, key = (own_clinic, clinic_key) if operation.get("x-clinic-key-only") else (sandbox, test_key)
        headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("example")
        url, name = _url(path, operation, clinic_id), f"{method.upper()} {path}"
        with recorded_statements() as statements:
            if body is not None:
                response = getattr(testapp, f"{method}_json")(url, body, headers=headers, expect_errors=True)
            else:
                response = getattr(testapp, method)(url, headers=headers, expect_errors=True)
        statuses[name] = response.status_int
        answered += response.status_int < 300
        every.extend(statements)
        per_request[name] = {schema for statement in statements for schema in CLINIC_SCHEMA.findall(statement)}
    clinic_statements = [s for s in every if CLINIC_SCHEMA.search(s)]
    assert answered > 60 and len(clinic_statements) > 200, (answered, len(clinic_statements), statuses)
    assert 500 not in statuses.values()
    assert statement_refusals(every) == []
    assert {name: schemas for name, schemas in per_request.items() if len(schemas) > 1} == {}


def test_the_statement_check_fails_on_a_deliberately_bad_statement(world, engine):
    first, second = schema_name(world.clinic()), schema_name(world.clinic())
    with recorded_statements() as statements, engine.begin() as connection:
        connection.execute(text(f'SELECT count(*) FROM "{first}".patients JOIN "{second}".patients USING (id)'))
        connection.execute(text(f'SELECT count(*) FROM "{first}".patients p JOIN control.workspaces w ON w.id = p.id'))
        connection.execute(text(f'SELECT count(*) FROM "{first}".patients p JOIN control.clinics c ON c.id = p.id'))
    # control.clinics as if it were a reference table: the join with it is allowed, the one with workspaces not.
    refusals = statement_refusals(statements, reference_tables={"control.clinics"})
    assert [refusal.split(":")[0] for refusal in refusals] == [
        "names 2 clinic schemas", "names a clinic schema and ['control.workspaces']"]


def test_the_reference_tables_are_those_docs_scale_out_distributes():
    distributed = set(re.findall(r"create_reference_table\('([a-z_.]+)'\)", SCALE_OUT.read_text()))
    assert distributed == REFERENCE_TABLES
