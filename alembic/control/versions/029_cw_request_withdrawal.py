"""connection_requests: an organization may withdraw its pending request

Revision ID: cw_request_withdrawal
Revises: cht_second_step_throttle

A pending connection request may now be withdrawn by the organization that sent it: `status` takes
'withdrawn' besides 'pending', 'approved' and 'declined' (`decided_at` and `decided_by` say when and who). Only
the check constraint changes: no row is rewritten.
"""

from alembic import op

revision = 'cw_request_withdrawal'
down_revision = 'cht_second_step_throttle'
branch_labels = None
depends_on = None


def upgrade():
    op.drop_constraint(op.f('ck_connection_requests_status'), 'connection_requests', type_='check')
    op.create_check_constraint(op.f('ck_connection_requests_status'), 'connection_requests',
                               "status IN ('pending', 'approved', 'declined', 'withdrawn')")


def downgrade():
    op.execute("UPDATE connection_requests SET status = 'declined' WHERE status = 'withdrawn'")
    op.drop_constraint(op.f('ck_connection_requests_status'), 'connection_requests', type_='check')
    op.create_check_constraint(op.f('ck_connection_requests_status'), 'connection_requests',
                               "status IN ('pending', 'approved', 'declined')")
