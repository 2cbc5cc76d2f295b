"""events: audience and origin (never shown)

Revision ID: t09_events
Revises: t06_encounters
"""

from alembic import op
import sqlalchemy as sa

revision = 't09_events'
down_revision = 't06_encounters'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('events', sa.Column('audience_id', sa.Uuid(), nullable=True))
    op.add_column('events', sa.Column('origin_id', sa.Uuid(), nullable=True))


def downgrade():
    op.drop_column('events', 'origin_id')
    op.drop_column('events', 'audience_id')
