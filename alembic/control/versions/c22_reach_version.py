"""reach version: one counter every change to what decides a key's validity and reach increments

Revision ID: c22_reach_version
Revises: c21_clinic_staff

Expand only: a new one-row table, a function and statement-level triggers. The in-process key cache
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

# api_keys.last_used_at/last_used_address are written by the request path itself (once a minute per key)
# and decide nothing: updating only them must not empty every process's cache.
_API_KEY_COLUMNS = ('id', 'key_id', 'mode', 'clinic_id', 'workspace_id', 'secret_hash', 'scopes', 'ip_allow',
                    'rate_limit', 'expires_at', 'revoked_at')
_WHOLE_ROW_TABLES = ('workspaces', 'connections', 'clinics')


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
    op.execute(f"""
CREATE TRIGGER bump_reach_version AFTER INSERT OR DELETE OR UPDATE OF {', '.join(_API_KEY_COLUMNS)}
ON control.api_keys FOR EACH STATEMENT EXECUTE FUNCTION control.bump_reach_version()""")
    for table in _WHOLE_ROW_TABLES:
        op.execute(f"""
CREATE TRIGGER bump_reach_version AFTER INSERT OR DELETE OR UPDATE
ON control.{table} FOR EACH STATEMENT EXECUTE FUNCTION control.bump_reach_version()""")
    for table in ('api_keys',) + _WHOLE_ROW_TABLES:
        op.execute(f"""
CREATE TRIGGER bump_reach_version_truncate AFTER TRUNCATE
ON control.{table} FOR EACH STATEMENT EXECUTE FUNCTION control.bump_reach_version()""")


def downgrade():
    for table in ('api_keys',) + _WHOLE_ROW_TABLES:
        op.execute(f"DROP TRIGGER bump_reach_version_truncate ON control.{table}")
        op.execute(f"DROP TRIGGER bump_reach_version ON control.{table}")
    op.execute("DROP FUNCTION control.bump_reach_version()")
    op.drop_table('reach_version', schema='control')
