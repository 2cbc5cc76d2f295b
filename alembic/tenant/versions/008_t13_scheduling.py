"""clinicians' calendars and appointments

Revision ID: t13_scheduling
Revises: t13_ledger
"""

from alembic import op
import sqlalchemy as sa

revision = 't13_scheduling'
down_revision = 't13_ledger'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('working_hours',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('weekday', sa.SmallInteger(), nullable=False),
    sa.Column('start_time', sa.Time(), nullable=False),
    sa.Column('end_time', sa.Time(), nullable=False),
    sa.CheckConstraint('weekday BETWEEN 0 AND 6', name=op.f('ck_working_hours_weekday')),
    sa.CheckConstraint('start_time < end_time', name=op.f('ck_working_hours_start_before_end')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_working_hours_provider_id_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_working_hours')),
    sa.UniqueConstraint('provider_id', 'weekday', name=op.f('uq_working_hours_provider_id'))
    )
    op.create_table('calendar_blocks',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('starts_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ends_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('reason', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint('starts_at < ends_at', name=op.f('ck_calendar_blocks_starts_before_ends')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_calendar_blocks_provider_id_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_calendar_blocks'))
    )
    op.create_index(op.f('ix_calendar_blocks_provider_id'), 'calendar_blocks', ['provider_id'], unique=False)
    op.create_table('appointments',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('starts_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ends_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('referral_id', sa.Uuid(), nullable=True),
    sa.Column('reason', sa.String(length=500), nullable=True),
    sa.Column('booked_by_owner_id', sa.Uuid(), nullable=True),
    sa.Column('cancelled_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('booked', 'cancelled')", name=op.f('ck_appointments_status')),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_appointments_patient_id_patients')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_appointments_provider_id_providers')),
    sa.ForeignKeyConstraint(['referral_id'], ['referrals.id'], name=op.f('fk_appointments_referral_id_referrals')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_appointments'))
    )
    op.create_index(op.f('ix_appointments_patient_id'), 'appointments', ['patient_id'], unique=False)
    op.create_index('ix_appointments_updated_at', 'appointments', ['updated_at'], unique=False)
    op.create_index('uq_appointments_booked_slot', 'appointments', ['provider_id', 'starts_at'], unique=True,
                    postgresql_where=sa.text("status = 'booked'"))


def downgrade():
    op.drop_table('appointments')
    op.drop_table('calendar_blocks')
    op.drop_table('working_hours')
