"""list indexes for every other keyset-paged list; single-row tables without their stray SMALLSERIAL

Revision ID: t16_list_indexes
Revises: t15_list_indexes

Each list is paged by `keyset_page` on a (sort column, id) pair; its index leads with that pair, or with
the column the list always filters by first (a sender's submissions). Where an older single-column index
has the same leading column it is dropped: the btree on (x, id) serves every query the one on (x) served.

t0001 and t08_inventory created `event_counter.id` and `till_state.id` as a single integer primary key
without `autoincrement=False`, so migrated schemas got a SMALLSERIAL default and an owned sequence that the
models (and schemas built from them) do not have. Released revisions stay as they were; the default and
the sequence are dropped here (a no-op for schemas built without them).
"""

from alembic import op

revision = 't16_list_indexes'
down_revision = 't15_list_indexes'
branch_labels = None
depends_on = None

CREATED_AT_ID = ("encounters", "patients", "prescriptions", "providers", "coverages", "inventory_items",
                 "care_providers")
# (index, table, columns) beyond the (created_at, id) ones
INDEXES = (
    ("ix_appointments_starts_at_id", "appointments", ["starts_at", "id"]),
    ("ix_submissions_sender_submitted_id", "submissions", ["sender_owner_id", "submitted_at", "id"]),
    ("ix_dispensings_dispensed_at_id", "dispensings", ["dispensed_at", "id"]),
    ("ix_payers_search_name_id", "payers", ["search_name", "id"]),
)
# (index, table, columns) made redundant by the ones above
REPLACED = (
    ("ix_submissions_sender_submitted", "submissions", ["sender_owner_id", "submitted_at"]),
    ("ix_dispensings_dispensed_at", "dispensings", ["dispensed_at"]),
    ("ix_payers_search_name", "payers", ["search_name"]),
)
SINGLE_ROW_TABLES = ("event_counter", "till_state")


def _indexes():
    created = [(f"ix_{table}_created_at_id", table, ["created_at", "id"]) for table in CREATED_AT_ID]
    return created + list(INDEXES)


def upgrade():
    for name, table, columns in _indexes():
        op.create_index(name, table, columns, unique=False)
    for name, table, _ in REPLACED:
        op.drop_index(name, table_name=table)
    for table in SINGLE_ROW_TABLES:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN id DROP DEFAULT")
        op.execute(f"DROP SEQUENCE IF EXISTS {table}_id_seq")


def downgrade():
    for table in SINGLE_ROW_TABLES:
        op.execute(f"CREATE SEQUENCE IF NOT EXISTS {table}_id_seq AS smallint OWNED BY {table}.id")
        op.execute(f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT nextval('{table}_id_seq'::regclass)")
    for name, table, columns in REPLACED:
        op.create_index(name, table, columns, unique=False)
    for name, table, _ in _indexes():
        op.drop_index(name, table_name=table)
