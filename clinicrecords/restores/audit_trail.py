"""`database restored --audit-from URL`: the audit trail written after T, which a restore of the whole database
to T loses, copied back from the old primary's database (its data folder is kept: docs/operations.md,
"Restoring the whole database"), started read-only on another port.

`audit_log` is append-only: entries are only inserted, each at most once (matched by its id), so running it
again inserts nothing. The old primary is read in one read-only snapshot and checked as `clinic restore
--from` checks its copy (clinicrecords.restores.clinic_restore); its refusals change nothing."""

import contextlib
import datetime

from psycopg import sql

from clinicrecords.clinics.services import list_clinics
from clinicrecords.db.tenancy import schema_name
from clinicrecords.restores.clinic_restore import (
    connect_copy,
    refuse_copy_without,
    refuse_other_revision,
    refuse_production_itself,
    refuse_without_clinics,
)
from clinicrecords.restores.services import RestoreError

AUDIT_LOG = "audit_log"
# An entry is stamped as it is written and committed a moment later (later still while the commit waits for a
# synchronous standby): one stamped shortly before T may have committed after it, so the restored database
# lacks it. The entries stamped this long before T are compared too; those the restored database has are left.
STAMPED_BEFORE_T = datetime.timedelta(minutes=10)
_INCOMING = "restores_audit_incoming"


@contextlib.contextmanager
def old_primary(db, url):
    """The database at `url` (the old primary), for `copy_audit_trail`. Refused (RestoreError, before anything
    is changed): a URL that cannot be reached, the database `db` is on (the restored one), a database whose
    control schema is at another migration revision, one holding no clinics at all."""
    restored = db.connection().connection.driver_connection
    try:
        source = connect_copy(url)
    except RestoreError as error:
        reason = str(error).partition(" names: ")[2] or str(error)
        raise RestoreError(f"cannot connect to the old primary --audit-from names: {reason}") from None
    with source:
        try:
            refuse_production_itself(restored, source)
        except RestoreError:
            raise RestoreError("--audit-from names the restored database itself; give the old primary's, started "
                               "read-only on another port (docs/operations.md)") from None
        refuse_without_clinics(source, "--audit-from")
        _checked(refuse_other_revision, restored, source, "control")
        yield source


def copy_audit_trail(db, source, restored_to, progress=None):
    """Every clinic's entries the old primary (`source`, from `old_primary`) wrote after T and the restored
    database (`db`'s, in its transaction) lacks, inserted there. A clinic only one side has is skipped: made
    after T (only in the old primary: the restore lost it whole), or closed after T there (only in the restored
    database: the old primary no longer has its trail). Returns the entries copied and the clinics skipped."""
    restored = db.connection().connection.driver_connection
    # The service's statement timeout bounds a request, not the copy of a clinic's trail since T.
    restored.execute("SET LOCAL statement_timeout = 0")
    clinics = list_clinics(db, include_sandboxes=True)
    since = restored_to - STAMPED_BEFORE_T
    copied, only_in_restored, incoming = 0, 0, {}
    for done, clinic in enumerate(clinics, 1):
        schema = schema_name(clinic.id)
        try:
            refuse_copy_without(source, clinic.id, schema)
        except RestoreError:
            only_in_restored += 1
        else:
            _checked(refuse_other_revision, restored, source, schema)
            copied += _copy_entries(source, restored, schema, since, incoming)
        if progress:
            progress(done, len(clinics))
    for table in incoming.values():
        restored.execute(sql.SQL("DROP TABLE {}").format(table))
    in_old = {row[0] for row in source.execute("SELECT id FROM control.clinics WHERE schema_dropped_at IS NULL")}
    only_in_old = len(in_old - {clinic.id for clinic in clinics})
    return {"copied": copied, "skipped": {"only_in_old": only_in_old, "only_in_restored": only_in_restored}}


def _checked(check, *args):
    try:
        check(*args)
    except RestoreError as error:
        raise RestoreError(f"--audit-from: {error}") from None


def _copy_entries(source, restored, schema, since, incoming):
    """The clinic's entries stamped after `since` on the old primary, streamed (COPY, binary) into a temporary
    table shaped as the restored database's `audit_log`, then inserted where their id is not there yet."""
    table = sql.Identifier(schema, AUDIT_LOG)
    columns = tuple(row[0] for row in restored.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s "
        "ORDER BY ordinal_position", (schema, AUDIT_LOG)))
    listed = sql.SQL(", ").join(map(sql.Identifier, columns))
    if columns not in incoming:
        incoming[columns] = sql.Identifier(f"{_INCOMING}_{len(incoming)}")
        restored.execute(sql.SQL("CREATE TEMPORARY TABLE {} AS SELECT {} FROM {} WITH NO DATA").format(
            incoming[columns], listed, table))
    temporary = incoming[columns]
    restored.execute(sql.SQL("TRUNCATE {}").format(temporary))
    with source.cursor().copy(sql.SQL("COPY (SELECT {} FROM {} WHERE at > {}) TO STDOUT (FORMAT binary)").format(
            listed, table, sql.Literal(since))) as reading, \
            restored.cursor().copy(sql.SQL("COPY {} FROM STDIN (FORMAT binary)").format(temporary)) as writing:
        for block in reading:
            writing.write(block)
    return restored.execute(sql.SQL("INSERT INTO {} ({}) SELECT {} FROM {} ON CONFLICT (id) DO NOTHING").format(
        table, listed, listed, temporary)).rowcount
