"""control baseline

Revision ID: c0001
Revises:
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('clinics',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('lat', sa.Numeric(precision=18, scale=4), nullable=True),
    sa.Column('lng', sa.Numeric(precision=18, scale=4), nullable=True),
    sa.Column('sandbox_of_workspace_id', sa.Uuid(), nullable=True),
    sa.Column('schema_revision', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("kind IN ('clinic', 'pharmacy')", name=op.f('ck_clinics_kind')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_clinics')),
    sa.UniqueConstraint('sandbox_of_workspace_id', name=op.f('uq_clinics_sandbox_of_workspace_id')),
    schema='control'
    )
    op.create_table('idempotency_records',
    sa.Column('owner_id', sa.Uuid(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('fingerprint', sa.LargeBinary(length=32), nullable=False),
    sa.Column('status', sa.SmallInteger(), nullable=False),
    sa.Column('headers', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('body', sa.LargeBinary(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('owner_id', 'key', name=op.f('pk_idempotency_records')),
    schema='control'
    )
    op.create_index('ix_idempotency_records_created_at', 'idempotency_records', ['created_at'], unique=False, schema='control')
    op.create_table('workspaces',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('verified', sa.Boolean(), nullable=False),
    sa.Column('plan', sa.String(length=20), nullable=False),
    sa.Column('terms_accepted', sa.Boolean(), nullable=False),
    sa.Column('sandbox_clinic_id', sa.Uuid(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("plan IN ('sandbox', 'paid')", name=op.f('ck_workspaces_plan')),
    sa.ForeignKeyConstraint(['sandbox_clinic_id'], ['control.clinics.id'], name=op.f('fk_workspaces_sandbox_clinic_id_clinics')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_workspaces')),
    schema='control'
    )
    op.create_table('api_keys',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('key_id', sa.String(length=32), nullable=False),
    sa.Column('mode', sa.String(length=4), nullable=False),
    sa.Column('clinic_id', sa.Uuid(), nullable=True),
    sa.Column('workspace_id', sa.Uuid(), nullable=True),
    sa.Column('secret_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('scopes', sa.ARRAY(sa.String(length=64)), nullable=True),
    sa.Column('ip_allow', sa.ARRAY(sa.String(length=64)), nullable=True),
    sa.Column('rate_limit', sa.Integer(), nullable=True),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("clinic_id IS NULL OR mode = 'live'", name=op.f('ck_api_keys_clinic_keys_live')),
    sa.CheckConstraint("mode IN ('live', 'test')", name=op.f('ck_api_keys_mode')),
    sa.CheckConstraint('(clinic_id IS NULL) <> (workspace_id IS NULL)', name=op.f('ck_api_keys_one_owner')),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_api_keys_clinic_id_clinics')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_api_keys_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_keys')),
    sa.UniqueConstraint('key_id', name=op.f('uq_api_keys_key_id')),
    schema='control'
    )
    op.create_index(op.f('ix_control_api_keys_clinic_id'), 'api_keys', ['clinic_id'], unique=False, schema='control')
    op.create_index(op.f('ix_control_api_keys_workspace_id'), 'api_keys', ['workspace_id'], unique=False, schema='control')
    op.create_table('connections',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('scopes', sa.ARRAY(sa.String(length=64)), nullable=False),
    sa.Column('connected_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_connections_clinic_id_clinics')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_connections_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_connections')),
    sa.UniqueConstraint('workspace_id', 'clinic_id', name=op.f('uq_connections_workspace_id')),
    schema='control'
    )
    op.create_index(op.f('ix_control_connections_clinic_id'), 'connections', ['clinic_id'], unique=False, schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_connections_clinic_id'), table_name='connections', schema='control')
    op.drop_table('connections', schema='control')
    op.drop_index(op.f('ix_control_api_keys_workspace_id'), table_name='api_keys', schema='control')
    op.drop_index(op.f('ix_control_api_keys_clinic_id'), table_name='api_keys', schema='control')
    op.drop_table('api_keys', schema='control')
    op.drop_table('workspaces', schema='control')
    op.drop_index('ix_idempotency_records_created_at', table_name='idempotency_records', schema='control')
    op.drop_table('idempotency_records', schema='control')
    op.drop_table('clinics', schema='control')
