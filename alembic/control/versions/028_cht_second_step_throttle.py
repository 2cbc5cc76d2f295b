"""identity: wrong second-step codes counted apart from passwords; mail requests of an address's owner apart

Revision ID: cht_second_step_throttle
Revises: c37f_export_jobs

`second_step_failures` (a wrong code at the second step of signing in or on the "Confirm it's you" page, per
account and client address: a right password no longer clears them) and `account_mail_requests.by_owner` (the
signed-in owner of the address asked, counted apart from strangers). A new, empty table and a column with a
default: nothing to rewrite.
"""

from alembic import op
import sqlalchemy as sa

revision = 'cht_second_step_throttle'
down_revision = 'c37f_export_jobs'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('second_step_failures',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('address', sa.String(length=64), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['control.accounts.id'],
                            name=op.f('fk_second_step_failures_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_second_step_failures')),
    schema='control'
    )
    op.create_index(op.f('ix_control_second_step_failures_account_id'), 'second_step_failures', ['account_id'],
                    unique=False, schema='control')
    op.create_index(op.f('ix_control_second_step_failures_at'), 'second_step_failures', ['at'], unique=False,
                    schema='control')
    op.add_column('account_mail_requests', sa.Column('by_owner', sa.Boolean(), server_default=sa.false(),
                                                     nullable=False), schema='control')


def downgrade():
    op.drop_column('account_mail_requests', 'by_owner', schema='control')
    op.drop_index(op.f('ix_control_second_step_failures_at'), table_name='second_step_failures', schema='control')
    op.drop_index(op.f('ix_control_second_step_failures_account_id'), table_name='second_step_failures',
                  schema='control')
    op.drop_table('second_step_failures', schema='control')
