"""keys: an optional name for each key (shown where keys are listed; keys made before show their masked id)

Revision ID: c26_key_names
Revises: c25_one_time_reads

Expand only: a nullable column.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c26_key_names'
down_revision = 'c25_one_time_reads'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('api_keys', sa.Column('name', sa.String(length=100), nullable=True), schema='control')


def downgrade():
    op.drop_column('api_keys', 'name', schema='control')
