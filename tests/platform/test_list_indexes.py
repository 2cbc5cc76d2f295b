"""Every keyset-paged list has a btree index that reads its pages in order, in a migrated schema.

The lists are found in the source: every `keyset_page(` call in clinicrecords/ is parsed, and its sort
argument is evaluated in its module (for the chart items' generic `self.model`, once per model the service
lists), so a new list without its index fails here. The index must lead with the sort pair, or with a
column the list always filters by followed by the pair (ALWAYS_FILTERED_BY).
"""

import ast
import importlib
import pathlib
import types
import uuid

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.schema import CreateSchema

import clinicrecords
from clinicrecords.clinical.kinds import KINDS
from clinicrecords.clinics.services import CLINIC_SCHEMAS
from clinicrecords.db import migrations
from clinicrecords.db.meta import CONTROL_SCHEMA
from clinicrecords.db.tenancy import schema_name
from tests.platform.test_migrations import _catalog, _make_clinic_at_base

SOURCE = pathlib.Path(clinicrecords.__file__).parent

# Lists whose statement always filters by one column before paging: the useful index leads with it.
ALWAYS_FILTERED_BY = {
    "submissions": "sender_owner_id",  # a sender's own submissions (ReviewService.list_own)
    "stock_movements": "item_id",      # one item's ledger (ledger.movements_of)
    "connections": "workspace_id",     # the calling workspace's connections (ReachService.reachable)
}

# Call sites whose sort columns name `self`: what `self` stands for, one value per listed model.
SELF_STANDS_FOR = {
    "clinicrecords.clinical.items": [types.SimpleNamespace(model=kind.model) for kind in KINDS],
}


def _calls():
    """(module name, line, sort argument node) for every keyset_page call in the source."""
    found, mentions = [], 0
    for path in sorted(SOURCE.rglob("*.py")):
        source = path.read_text()
        mentions += source.count("keyset_page(")
        module = ".".join(path.relative_to(SOURCE.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "keyset_page":
                found.append((module, node.lineno, node.args[3]))
    return found, mentions


def _sort_columns(module_name, node):
    """The (table, schema, column names) lists a call site pages on."""
    module = importlib.import_module(module_name)
    code = compile(ast.Expression(node), module_name, "eval")
    names = {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}
    selves = SELF_STANDS_FOR[module_name] if "self" in names else [None]
    sorts = []
    for self in selves:
        columns = [attribute.property.columns[0] for attribute in eval(code, vars(module), {"self": self})]
        tables = {column.table for column in columns}
        assert len(tables) == 1, f"{module_name}: sort columns from several tables"
        table = tables.pop()
        sorts.append((table.name, table.schema, [column.name for column in columns]))
    return sorts


def _listed():
    calls, mentions = _calls()
    # The definition is the one mention that is not a call: a list paged through an alias would slip by.
    assert len(calls) == mentions - 1 and calls
    return {sort for module, _, node in calls for sort in map(tuple, _as_tuples(_sort_columns(module, node)))}


def _as_tuples(sorts):
    return [(table, schema, tuple(columns)) for table, schema, columns in sorts]


def _btree_indexes(connection, schema):
    """{table: [column names of each full (not partial) btree index]} from the catalog."""
    rows = connection.execute(text("""
        SELECT t.relname,
               array(SELECT a.attname FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n)
                     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n)
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        JOIN pg_namespace s ON s.oid = t.relnamespace JOIN pg_am am ON am.oid = i.relam
        WHERE s.nspname = :schema AND am.amname = 'btree' AND x.indpred IS NULL"""), {"schema": schema})
    indexes = {}
    for table, columns in rows:
        indexes.setdefault(table, []).append(tuple(columns))
    return indexes


def _migrated_clinic(engine):
    """A clinic whose schema is built by running every tenant revision, as an old clinic's was."""
    clinic_id = _make_clinic_at_base(engine)
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    return clinic_id


def _served(sort, indexes):
    table, _, columns = sort
    leads = [columns]
    if table in ALWAYS_FILTERED_BY:
        leads.append((ALWAYS_FILTERED_BY[table],) + columns)
    return any(index[:len(lead)] == lead for index in indexes.get(table, []) for lead in leads)


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_every_keyset_paged_list_has_an_index_in_its_order_in_a_migrated_schema(engine):
    listed = _listed()
    assert {"patients", "allergies", "appointments", "payers", "listing_clinics", "stock_movements"} <= \
        {table for table, _, _ in listed}
    clinic_id = _migrated_clinic(engine)
    with engine.connect() as connection:
        catalogs = {None: _btree_indexes(connection, schema_name(clinic_id)),
                    CONTROL_SCHEMA: _btree_indexes(connection, CONTROL_SCHEMA)}
    missing = sorted(sort for sort in listed if not _served(sort, catalogs[sort[1]]))
    assert missing == []


def test_the_check_notices_a_list_without_its_index():
    indexes = {"patients": [("id",), ("updated_at",), ("created_at",)],
               "submissions": [("submitted_at", "id", "sender_owner_id"), ("sender_owner_id", "id")]}
    assert not _served(("patients", None, ("created_at", "id")), indexes)
    assert not _served(("submissions", None, ("submitted_at", "id")), {"submissions": [("sender_owner_id",)]})
    assert _served(("submissions", None, ("submitted_at", "id")), indexes)
    assert _served(("patients", None, ("created_at", "id")),
                   {"patients": [("created_at", "id", "family_name")]})


def _single_row_defaults(connection, schema):
    return connection.execute(text("""
        SELECT c.relname, pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
        JOIN pg_class c ON c.oid = d.adrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = :s AND c.relname IN ('event_counter', 'till_state')
        UNION ALL
        SELECT c.relname, c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = :s AND c.relkind = 'S' ORDER BY 1"""), {"s": schema}).all()


def _tenant_to(engine, schema, revision, downgrade=False):
    with engine.begin() as connection:
        migrations.prepare_migration_transaction(connection, schema)
        config = migrations.alembic_config("tenant", connection, schema)
        (command.downgrade if downgrade else command.upgrade)(config, revision)


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_t16_drops_the_single_row_tables_serial_and_its_downgrade_restores_t15_exactly(engine):
    downgraded = schema_name(_migrated_clinic(engine))
    with engine.connect() as connection:
        assert _single_row_defaults(connection, downgraded) == []
    _tenant_to(engine, downgraded, "t15_list_indexes", downgrade=True)
    at_t15 = schema_name(uuid.uuid4())
    with engine.begin() as connection:
        connection.execute(CreateSchema(at_t15))
    _tenant_to(engine, at_t15, "t15_list_indexes")
    with engine.connect() as connection:
        assert _single_row_defaults(connection, at_t15) == [
            ("event_counter", f"nextval('{at_t15}.event_counter_id_seq'::regclass)"),
            ("event_counter_id_seq", "S"),
            ("till_state", f"nextval('{at_t15}.till_state_id_seq'::regclass)"),
            ("till_state_id_seq", "S")]
    assert _catalog(engine, downgraded) == _catalog(engine, at_t15)
    with engine.connect() as connection:  # the check bites: at t15 only the chart items and movements pass
        at_t15_indexes = _btree_indexes(connection, at_t15)
    unserved = {table for table, schema, columns in _listed()
                if schema is None and not _served((table, schema, columns), at_t15_indexes)}
    assert unserved == {"patients", "encounters", "prescriptions", "providers", "coverages",
                        "inventory_items", "care_providers", "appointments", "submissions", "dispensings",
                        "payers"}
    for schema in (downgraded, at_t15):
        _tenant_to(engine, schema, "head")
    assert _catalog(engine, downgraded) == _catalog(engine, at_t15)
    with engine.connect() as connection:
        assert _single_row_defaults(connection, at_t15) == []
        assert ("dispensed_at",) not in _btree_indexes(connection, at_t15)["dispensings"]
    with engine.begin() as connection:
        connection.execute(text(f'DROP SCHEMA "{at_t15}" CASCADE'))
