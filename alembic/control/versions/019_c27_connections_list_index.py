"""connections: GET /v1/connections is keyset-paged on (connected_at, clinic_id) within one workspace

Revision ID: c27_connections_list_index
Revises: c26_key_names

Expand only: a new index, (workspace_id, connected_at, clinic_id), so a workspace's page reads in order.
"""

from alembic import op

revision = 'c27_connections_list_index'
down_revision = 'c26_key_names'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('ix_connections_workspace_connected_clinic', 'connections',
                    ['workspace_id', 'connected_at', 'clinic_id'], unique=False, schema='control')


def downgrade():
    op.drop_index('ix_connections_workspace_connected_clinic', table_name='connections', schema='control')
