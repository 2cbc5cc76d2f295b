"""notifications: the notifications each person turned off, and the review digests sent

Revision ID: c33n_notifications
Revises: c34s_sessions_devices

`notifications_turned_off` holds a row per person and notification they do not want (every notification is
on until turned off); `review_digests` one row per clinic and local day whose review digest was sent (docs/decisions/0095-notifications-email.md).
"""

from alembic import op
import sqlalchemy as sa

revision = 'c33n_notifications'
down_revision = 'c34s_sessions_devices'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('notifications_turned_off',
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('turned_off_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['control.accounts.id'], ondelete='CASCADE',
                            name=op.f('fk_notifications_turned_off_account_id_accounts')),
    sa.PrimaryKeyConstraint('account_id', 'kind', name=op.f('pk_notifications_turned_off')),
    schema='control'
    )
    op.create_table('review_digests',
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('waiting', sa.Integer(), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], ondelete='CASCADE',
                            name=op.f('fk_review_digests_clinic_id_clinics')),
    sa.PrimaryKeyConstraint('clinic_id', 'day', name=op.f('pk_review_digests')),
    schema='control'
    )
    op.create_index(op.f('ix_control_review_digests_day'), 'review_digests', ['day'], unique=False,
                    schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_review_digests_day'), table_name='review_digests', schema='control')
    op.drop_table('review_digests', schema='control')
    op.drop_table('notifications_turned_off', schema='control')
