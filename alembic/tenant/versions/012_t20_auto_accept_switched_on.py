"""auto_accept_settings.switched_on_at: an organization-wide setting applies to the keys that existed then

Revision ID: t20_auto_accept_switched_on
Revises: t16_list_indexes

Expand only: a nullable column. Settings already on are backfilled with their `updated_at` (at or after the
moment they were switched on), so every key they applied to keeps its automatic acceptance. A workspace
setting with no `switched_on_at` applies to no key (automatic acceptance is off by default).
"""

from alembic import op
import sqlalchemy as sa

revision = 't20_auto_accept_switched_on'
down_revision = 't16_list_indexes'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('auto_accept_settings', sa.Column('switched_on_at', sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE auto_accept_settings SET switched_on_at = updated_at WHERE enabled")


def downgrade():
    op.drop_column('auto_accept_settings', 'switched_on_at')
