"""reach version: one counter every change to what decides a key's validity and reach increments

Revision ID: c22_reach_version
Revises: c21_clinic_staff

Expand only: a new one-row table, a function and triggers (per statement; per row for the updates of
api_keys and clinics, which leave out the columns that decide nothing). The in-process key cache
(clinicrecords.access.keycache) uses a cached key only while this counter is the one it was read with; the
triggers make every writer (operator CLI, portal, onboarding, psql) invalidate it, so no code path can forget.
The counter is a row, not a sequence: its new value becomes visible with the change's commit, never before.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c22_reach_version'
down_revision = 'c21_clinic_staff'
branch_labels = None
depends_on = None

# Columns written that decide nothing about reach: the request path's own once-a-minute stamp of a key's last
# use, and the tenant migrations' record of a clinic's schema revision. An UPDATE that changes only those must
# not empty every process's cache; any other column, including ones added later, moves the version.
_IGNORED = {'api_keys': ('last_used_at', 'last_used_address'), 'clinics': ('schema_revision',)}
_TABLES = ('api_keys', 'workspaces', 'connections', 'clinics')


def upgrade():
    op.create_table('reach_version',
    sa.Column('id', sa.Boolean(), server_default=sa.text('true'), nullable=False),
    sa.Column('version', sa.BigInteger(), server_default=sa.text('1'), nullable=False),
    sa.CheckConstraint('id', name=op.f('ck_reach_version_one_row')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reach_version')),
    schema='control'
    )
    op.execute("INSERT INTO control.reach_version (id, version) VALUES (true, 1)")
    op.execute("""
CREATE FUNCTION control.bump_reach_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE control.reach_version SET version = version + 1 WHERE id;
    RETURN NULL;
END
$$""")
    for table in _TABLES:
        changes = 'INSERT OR DELETE OR TRUNCATE' if table in _IGNORED else 'INSERT OR DELETE OR UPDATE OR TRUNCATE'
        op.execute(f"""
CREATE TRIGGER bump_reach_version AFTER {changes}
ON control.{table} FOR EACH STATEMENT EXECUTE FUNCTION control.bump_reach_version()""")
    for table, columns in _IGNORED.items():
        kept = ' - '.join(["to_jsonb(OLD)", *(f"'{column}'" for column in columns)])
        kept_new = kept.replace('OLD', 'NEW')
        op.execute(f"""
CREATE TRIGGER bump_reach_version_on_update AFTER UPDATE
ON control.{table} FOR EACH ROW WHEN (({kept}) IS DISTINCT FROM ({kept_new}))
EXECUTE FUNCTION control.bump_reach_version()""")


def downgrade():
    for table in _IGNORED:
        op.execute(f"DROP TRIGGER bump_reach_version_on_update ON control.{table}")
    for table in _TABLES:
        op.execute(f"DROP TRIGGER bump_reach_version ON control.{table}")
    op.execute("DROP FUNCTION control.bump_reach_version()")
    op.drop_table('reach_version', schema='control')
