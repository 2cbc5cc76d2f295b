"""access: rate-limit counters and the monthly request counter per workspace

Revision ID: c03_access
Revises: c0001
"""

from alembic import op
import sqlalchemy as sa

revision = 'c03_access'
down_revision = 'c0001'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('rate_limit_counters',
    sa.Column('api_key_id', sa.Uuid(), nullable=False),
    sa.Column('window_start', sa.DateTime(timezone=True), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('api_key_id', name=op.f('pk_rate_limit_counters')),
    schema='control'
    )
    op.create_table('workspace_usage',
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('month', sa.Date(), nullable=False),
    sa.Column('mode', sa.String(length=4), nullable=False),
    sa.Column('requests', sa.BigInteger(), nullable=False),
    sa.CheckConstraint("mode IN ('live', 'test')", name=op.f('ck_workspace_usage_mode')),
    sa.PrimaryKeyConstraint('workspace_id', 'month', 'mode', name=op.f('pk_workspace_usage')),
    schema='control'
    )


def downgrade():
    op.drop_table('workspace_usage', schema='control')
    op.drop_table('rate_limit_counters', schema='control')
