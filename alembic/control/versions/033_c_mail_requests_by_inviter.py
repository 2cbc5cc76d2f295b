"""account_mail_requests.by_inviter: an invitation form's request for mail

Revision ID: c_mail_requests_by_inviter
Revises: c_idempotency_clinic

The invitation forms (a workspace's members, a clinic's staff) count in the mail throttle as a stranger's request
for the invited email; `by_inviter` marks their rows, which never count against the client address's own limit
(an admin inviting a whole team from one office must not refuse the office's sign-ups). A column with a default:
nothing to rewrite.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c_mail_requests_by_inviter'
down_revision = 'c_idempotency_clinic'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('account_mail_requests', sa.Column('by_inviter', sa.Boolean(), server_default=sa.false(),
                                                     nullable=False), schema='control')


def downgrade():
    op.drop_column('account_mail_requests', 'by_inviter', schema='control')
