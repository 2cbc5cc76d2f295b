"""request_log: each key owner's API requests of the last 7 days (the developer portal's request log)

Revision ID: c19_request_log
Revises: c18_webhook_attempts
"""

import sqlalchemy as sa
from alembic import op

revision = 'c19_request_log'
down_revision = 'c18_webhook_attempts'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'request_log',
        sa.Column('id', sa.BigInteger(), sa.Identity(always=True), nullable=False),
        sa.Column('occurred_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('owner_id', sa.Uuid(), nullable=False),
        sa.Column('key_id', sa.String(length=32), nullable=False),
        sa.Column('key_mode', sa.String(length=4), nullable=False),
        sa.Column('clinic_id', sa.Uuid(), nullable=True),
        sa.Column('method', sa.String(length=10), nullable=False),
        sa.Column('path', sa.String(length=500), nullable=False),
        sa.Column('status', sa.SmallInteger(), nullable=False),
        sa.Column('code', sa.String(length=64), nullable=True),
        sa.Column('request_id', sa.String(length=40), nullable=False),
        sa.Column('latency_ms', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_request_log')),
        schema='control',
    )
    op.create_index('ix_request_log_owner_id_occurred_at_id', 'request_log',
                    ['owner_id', 'occurred_at', 'id'], unique=False, schema='control')
    op.create_index('ix_request_log_request_id', 'request_log', ['request_id'], unique=False,
                    schema='control')
    op.create_index('ix_request_log_occurred_at', 'request_log', ['occurred_at'], unique=False,
                    schema='control', postgresql_using='brin')


def downgrade():
    op.drop_table('request_log', schema='control')
