"""One clinic's records brought back from a copy of the database recovered to a time T, while the service runs
and every other clinic keeps what it wrote since (docs/operations.md, "Restoring one clinic";
docs/decisions/0140-one-clinic-restored-in-one-transaction.md).

One transaction on production: it takes the clinic's restore lock (its keys' requests are answered 503 past
their reach meanwhile, clinicrecords.access.entry), replaces the clinic's tables with the copy's rows (never
`audit_log` nor the feed's tables), and sets right what points at them. A crash rolls it all back and lets the
lock go: the clinic is never half-restored nor left refusing, and the command can simply run again."""

import os
import time

import psycopg
from psycopg import sql

from clinicrecords.clinics.services import open_clinic
from clinicrecords.db import security_events
from clinicrecords.db.tenancy import clinic_lock_key, schema_name
from clinicrecords.events.services import announce_clinic_restored
from clinicrecords.exports.services import fail_unfinished_exports
from clinicrecords.inventory.services import linked_items_with_bands, till_row
from clinicrecords.listings.services import resync_clinic
from clinicrecords.restores.services import RestoreError, apply_again, read_security_events

# Never copied: the audit trail is append-only and keeps what was done after T; the feed continues (its counter
# stays, a clinic.restored event says what happened); the schema's revision is the migrations'.
NOT_COPIED = frozenset({"audit_log", "events", "event_counter", "alembic_version"})
# Kept as production has them (the union with the copy's): what protects a patient never goes backwards.
KEPT_FLAGS = (("patients", "restricted"), ("encounters", "sensitive"))
PROTECTIONS = (security_events.PATIENT_RESTRICTED, security_events.ENCOUNTER_SENSITIVE)
CONNECT_TIMEOUT_SECONDS = 10


def restore_clinic(db, clinic_id, source_url, progress=None):
    """Copy the clinic's records from the database at `source_url` into the one `db` is on, in `db`'s
    transaction (the caller commits). Refused (RestoreError, nothing changed) for an unknown clinic, a
    `source_url` naming this very database, a copy at another migration revision or without the clinic.
    Returns rows copied per table, the copy's point in time and what was set right."""
    started = time.monotonic()
    clinic = open_clinic(db, clinic_id)
    if clinic is None:
        raise RestoreError(f"no clinic {clinic_id}")
    schema = schema_name(clinic_id)
    production = db.connection().connection.driver_connection
    with connect_copy(source_url) as source:
        refuse_without_clinics(source)
        refuse_production_itself(production, source)
        refuse_other_revision(production, source, schema)
        refuse_copy_without(source, clinic_id, schema)
        restored_to = _copy_point_in_time(source, schema)
        tables = _tables_in_order(production, schema)
        # The service's statement timeout bounds a request, not the copy of a clinic's table.
        production.execute("SET LOCAL statement_timeout = 0")
        production.execute("SELECT pg_advisory_xact_lock(%s)", (clinic_lock_key(clinic_id),))
        restored_at = production.execute("SELECT clock_timestamp()").fetchone()[0]
        kept = {(table, column): _flagged(production, schema, table, column) for table, column in KEPT_FLAGS}
        for table in reversed(tables):
            production.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(schema, table)))
        copied = {}
        for done, table in enumerate(tables, 1):
            copied[table] = _copy_table(source, production, schema, table)
            if progress:
                progress(done, len(tables))
    for table in tables:
        _touch(production, schema, table, restored_at)
    for (table, column), ids in kept.items():
        production.execute(sql.SQL("UPDATE {} SET {} = true WHERE id = ANY(%s)").format(
            sql.Identifier(schema, table), sql.Identifier(column)), (ids,))
    reapplied = _protections_recorded_after(db, clinic_id, restored_to)
    forgotten = _forget_idempotent_answers(production, clinic_id, restored_to)
    failed_exports = fail_unfinished_exports(db, clinic_id)
    listed = resync_clinic(db, clinic, till_row, linked_items_with_bands)
    open_clinic(db, clinic_id)
    announce_clinic_restored(db, clinic_id, restored_to)
    return {"clinic_id": str(clinic_id), "restored_to": restored_to and restored_to.isoformat(),
            "rows": copied, "kept_flags": {f"{table}.{column}": len(ids) for (table, column), ids in kept.items()},
            "security_events_applied": reapplied,
            "idempotency_records_forgotten": forgotten, "exports_failed": failed_exports,
            "listed_items": listed["items"], "seconds": round(time.monotonic() - started, 3)}


def connect_copy(url):
    url = url.replace("postgresql+psycopg://", "postgresql://", 1)
    try:
        source = psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_SECONDS, autocommit=False)
    except (psycopg.Error, ValueError) as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[-1]
        raise RestoreError(f"cannot connect to the copy --from names: {first}") from None
    # One snapshot for every table read, and nothing written there. A restored copy keeps the role's session
    # timeouts of production (clinicrecords.db.session_settings): one clinic's table may take longer to read,
    # and the snapshot waits idle while production empties the clinic's tables.
    source.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    source.execute("SET LOCAL statement_timeout = 0")
    source.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
    return source


def refuse_without_clinics(source, option="--from"):
    """A database the service never made (the server's `postgres`, another application's): no control schema."""
    if source.execute("SELECT to_regclass('control.clinics')").fetchone()[0] is None:
        raise RestoreError(f"{option} names a database without clinics (no control schema): give the copy "
                           "recovered to T (docs/operations.md)")


_SERVER = ("SELECT inet_server_addr()::text, inet_server_port(), pg_postmaster_start_time(), "
           "(SELECT system_identifier FROM pg_control_system()), current_database()")


def refuse_production_itself(production, source):
    """The same server (by address and port, or by its start time and system identifier: a restored copy keeps
    the identifier, not the start time) and the same database: production itself."""
    here = production.execute(_SERVER).fetchone()
    there = source.execute(_SERVER).fetchone()
    same_address = here[0] is not None and here[:2] == there[:2]
    same_server = same_address or here[2:4] == there[2:4]
    if same_server and here[4] == there[4]:
        raise RestoreError("--from names the production database itself; give the copy recovered to T "
                           "(docs/operations.md, Restoring one clinic)")


def _revision(connection, schema):
    try:
        with connection.transaction():
            rows = connection.execute(sql.SQL("SELECT version_num FROM {} ORDER BY 1").format(
                sql.Identifier(schema, "alembic_version"))).fetchall()
    except psycopg.errors.UndefinedTable:
        return None
    return tuple(row[0] for row in rows)


def refuse_other_revision(production, source, schema):
    for where in ("control", schema):
        ours, theirs = _revision(production, where), _revision(source, where)
        if theirs is not None and ours != theirs:
            raise RestoreError(f"the copy's {'control' if where == 'control' else 'clinic'} schema is at migration "
                               f"{','.join(theirs) or 'none'}, production at {','.join(ours or ())}: "
                               "bring the copy to the same revision first")


def refuse_copy_without(source, clinic_id, schema):
    row = source.execute("SELECT schema_dropped_at IS NULL, to_regnamespace(%s) IS NOT NULL "
                         "FROM control.clinics WHERE id = %s", (schema, clinic_id)).fetchone()
    if row is None or not all(row):
        raise RestoreError(f"the copy has no clinic {clinic_id}")


def _copy_point_in_time(source, schema):
    """The last transaction a recovered copy replayed; for a copy made otherwise (a database cloned on a
    server), the clinic's newest audit entry there."""
    replayed = source.execute("SELECT pg_last_xact_replay_timestamp()").fetchone()[0]
    if replayed is not None:
        return replayed
    return source.execute(sql.SQL("SELECT max(at) FROM {}").format(
        sql.Identifier(schema, "audit_log"))).fetchone()[0]


def _tables_in_order(production, schema):
    """The clinic's tables the restore copies, each after the ones its foreign keys point at."""
    tables = [row[0] for row in production.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", (schema,))
        if row[0] not in NOT_COPIED]
    needs = {table: set() for table in tables}
    for table, target in production.execute(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint "
            "WHERE contype = 'f' AND connamespace = to_regnamespace(%s) AND conrelid <> confrelid", (schema,)):
        child, parent = table.rpartition(".")[2].strip('"'), target.rpartition(".")[2].strip('"')
        if child in needs and parent in needs:
            needs[child].add(parent)
    ordered = []
    while needs:
        ready = sorted(table for table, parents in needs.items() if not parents - set(ordered))
        if not ready:
            raise RuntimeError(f"foreign keys in a circle among {sorted(needs)}")
        ordered += ready
        for table in ready:
            del needs[table]
    return ordered


def _flagged(production, schema, table, column):
    return [row[0] for row in production.execute(sql.SQL("SELECT id FROM {} WHERE {}").format(
        sql.Identifier(schema, table), sql.Identifier(column)))]


def _copy_table(source, production, schema, table):
    """The copy's rows of one table into production's (emptied) one, streamed in COPY's binary format: the
    same revision, so the same columns in the same order."""
    name = sql.Identifier(schema, table)
    with source.cursor().copy(sql.SQL("COPY {} TO STDOUT (FORMAT binary)").format(name)) as reading, \
            production.cursor().copy(sql.SQL("COPY {} FROM STDIN (FORMAT binary)").format(name)) as writing:
        for block in reading:
            writing.write(block)
    return production.execute(sql.SQL("SELECT count(*) FROM {}").format(name)).fetchone()[0]


def _touch(production, schema, table, restored_at):
    """A new `updated_at` on every restored row, so `_since` exports and `updated_since` lists see it again."""
    has = production.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = %s "
                             "AND table_name = %s AND column_name = 'updated_at'", (schema, table)).fetchone()
    if has:
        production.execute(sql.SQL("UPDATE {} SET updated_at = %s").format(sql.Identifier(schema, table)),
                           (restored_at,))


def _protections_recorded_after(db, clinic_id, restored_to):
    """The clinic's restrictions and sensitive flags of the security-events file recorded after T applied again:
    one the accident itself undid (a row destroyed with its flag) is found there, not in production. How many
    found their record."""
    file = db.info.get(security_events.PATH)
    if restored_to is None or not file or not os.path.exists(file):
        return 0
    events = [event for event in read_security_events(file, restored_to)
              if event["kind"] in PROTECTIONS and event.get("clinic_id") == str(clinic_id)]
    return sum(1 for event in events if apply_again(db, event))


def _forget_idempotent_answers(production, clinic_id, restored_to):
    """The answers stored after T for writes to this clinic: what they created the restore removed, so a retry
    must write again rather than replay a 201 for a record that is gone, or a 200 for a change it undid. Every
    answer to a request that entered the clinic (`clinic_id`), whoever's key sent it; of those stored before the
    column existed, its own keys' (owner: the clinic) and connected workspaces' ones pointing into it (Location)."""
    if restored_to is None:
        return 0
    inside = f"%/clinics/{clinic_id}/%"
    return production.execute(
        "DELETE FROM control.idempotency_records WHERE created_at > %(t)s AND (clinic_id = %(clinic)s "
        "OR owner_id = %(clinic)s OR headers->>'Location' LIKE %(inside)s "
        "OR headers->>'Content-Location' LIKE %(inside)s)",
        {"t": restored_to, "clinic": clinic_id, "inside": inside}).rowcount
