"""webhook_attempts: every request of a delivery for the deliveries log; endpoints disabled by their owner

Revision ID: c18_webhook_attempts
Revises: c17_workspace_onboarding
"""

from alembic import op
import sqlalchemy as sa

revision = 'c18_webhook_attempts'
down_revision = 'c17_workspace_onboarding'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('webhook_endpoints', sa.Column('disabled_manually', sa.Boolean(), server_default=sa.false(),
                                                 nullable=False), schema='control')
    op.create_table('webhook_attempts',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('delivery_id', sa.Uuid(), nullable=False),
    sa.Column('attempted_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status_code', sa.SmallInteger(), nullable=True),
    sa.Column('duration_ms', sa.Integer(), nullable=False),
    sa.Column('response_body', sa.String(length=1024), nullable=True),
    sa.Column('error', sa.String(length=500), nullable=True),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['delivery_id'], ['control.webhook_deliveries.id'], name=op.f('fk_webhook_attempts_delivery_id_webhook_deliveries'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_attempts')),
    schema='control'
    )
    op.create_index('ix_webhook_attempts_delivery', 'webhook_attempts', ['delivery_id', 'attempted_at'], unique=False,
                    schema='control')


def downgrade():
    op.drop_index('ix_webhook_attempts_delivery', table_name='webhook_attempts', schema='control')
    op.drop_table('webhook_attempts', schema='control')
    op.drop_column('webhook_endpoints', 'disabled_manually', schema='control')
