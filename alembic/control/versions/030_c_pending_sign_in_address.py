"""identity: the client address of a password-free passkey ceremony

Revision ID: c_pending_sign_in_address
Revises: cw_request_withdrawal

The log-in page's passkey ceremony is asked for without signing in, and each asking writes a pending sign-in:
`address` (the client's, for password-free ones only) lets them be counted per address. A nullable column:
nothing to rewrite (the rows are minutes old at most).
"""

from alembic import op
import sqlalchemy as sa

revision = 'c_pending_sign_in_address'
down_revision = 'cw_request_withdrawal'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('pending_sign_ins', sa.Column('address', sa.String(length=64), nullable=True), schema='control')
    op.create_index(op.f('ix_control_pending_sign_ins_address'), 'pending_sign_ins', ['address'],
                    unique=False, schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_pending_sign_ins_address'), table_name='pending_sign_ins', schema='control')
    op.drop_column('pending_sign_ins', 'address', schema='control')
