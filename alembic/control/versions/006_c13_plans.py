"""clinics: plan features and timezone

Revision ID: c13_plans
Revises: c08_listings

Expand only: new columns with server defaults, so existing clinics keep every feature and read UTC.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c13_plans'
down_revision = 'c08_listings'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('clinics', sa.Column('timezone', sa.String(length=64), server_default='UTC', nullable=False),
                  schema='control')
    for name in ('api_access', 'api_addon', 'data_agreement'):
        op.add_column('clinics', sa.Column(name, sa.Boolean(), server_default=sa.true(), nullable=False),
                      schema='control')


def downgrade():
    for name in ('data_agreement', 'api_addon', 'api_access', 'timezone'):
        op.drop_column('clinics', name, schema='control')
