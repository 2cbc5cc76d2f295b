"""webhook endpoints and deliveries

Revision ID: c09_webhooks
Revises: c06_imports
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c09_webhooks'
down_revision = 'c06_imports'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('webhook_endpoints',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=True),
    sa.Column('clinic_id', sa.Uuid(), nullable=True),
    sa.Column('mode', sa.String(length=4), nullable=False),
    sa.Column('url', sa.String(length=2000), nullable=False),
    sa.Column('types', sa.ARRAY(sa.String(length=64)), nullable=True),
    sa.Column('secret', sa.String(length=100), nullable=False),
    sa.Column('previous_secret', sa.String(length=100), nullable=True),
    sa.Column('previous_secret_expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('failing_since', sa.DateTime(timezone=True), nullable=True),
    sa.Column('disabled_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('disabled_reason', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("(clinic_id IS NULL) <> (workspace_id IS NULL)", name=op.f('ck_webhook_endpoints_one_owner')),
    sa.CheckConstraint("clinic_id IS NULL OR mode = 'live'", name=op.f('ck_webhook_endpoints_clinic_endpoints_live')),
    sa.CheckConstraint("mode IN ('live', 'test')", name=op.f('ck_webhook_endpoints_mode')),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_webhook_endpoints_clinic_id_clinics')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_webhook_endpoints_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_endpoints')),
    schema='control'
    )
    op.create_index(op.f('ix_control_webhook_endpoints_clinic_id'), 'webhook_endpoints', ['clinic_id'], unique=False, schema='control')
    op.create_index('ix_webhook_endpoints_workspace_mode', 'webhook_endpoints', ['workspace_id', 'mode'], unique=False, schema='control')
    op.create_table('webhook_deliveries',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('endpoint_id', sa.Uuid(), nullable=False),
    sa.Column('clinic_id', sa.Uuid(), nullable=True),
    sa.Column('event_id', sa.Uuid(), nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=True),
    sa.Column('type', sa.String(length=64), nullable=False),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('locked_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('queued_for', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_attempt_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_status_code', sa.SmallInteger(), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('delivered_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('pending', 'delivered', 'failed', 'cancelled')", name=op.f('ck_webhook_deliveries_status')),
    sa.ForeignKeyConstraint(['endpoint_id'], ['control.webhook_endpoints.id'], name=op.f('fk_webhook_deliveries_endpoint_id_webhook_endpoints'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_deliveries')),
    schema='control'
    )
    op.create_index(op.f('ix_control_webhook_deliveries_created_at'), 'webhook_deliveries', ['created_at'], unique=False, schema='control')
    op.create_index('ix_webhook_deliveries_due', 'webhook_deliveries', ['status', 'next_attempt_at'], unique=False, schema='control')
    op.create_index('ix_webhook_deliveries_endpoint', 'webhook_deliveries', ['endpoint_id', 'created_at'], unique=False, schema='control')


def downgrade():
    op.drop_index('ix_webhook_deliveries_endpoint', table_name='webhook_deliveries', schema='control')
    op.drop_index('ix_webhook_deliveries_due', table_name='webhook_deliveries', schema='control')
    op.drop_index(op.f('ix_control_webhook_deliveries_created_at'), table_name='webhook_deliveries', schema='control')
    op.drop_table('webhook_deliveries', schema='control')
    op.drop_index('ix_webhook_endpoints_workspace_mode', table_name='webhook_endpoints', schema='control')
    op.drop_index(op.f('ix_control_webhook_endpoints_clinic_id'), table_name='webhook_endpoints', schema='control')
    op.drop_table('webhook_endpoints', schema='control')
