"""insurance and dispensing: payers, coverages, insurer links, claims, payment advices, dispensings

Revision ID: t07_insurance
Revises: t08_inventory
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 't07_insurance'
down_revision = 't08_inventory'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('payers',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('display_name', sa.String(length=200), nullable=False),
    sa.Column('search_name', sa.String(length=400), nullable=False),
    sa.Column('primary_payer_id', sa.String(length=64), nullable=False),
    sa.Column('coverage_types', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('operating_states', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_payers'))
    )
    op.create_index(op.f('ix_payers_search_name'), 'payers', ['search_name'], unique=False)
    op.create_table('claims',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('insurer_id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('amount', sa.Numeric(precision=18, scale=4), nullable=False),
    sa.Column('outstanding', sa.Numeric(precision=18, scale=4), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('awaiting_payment', 'paid')", name=op.f('ck_claims_status')),
    sa.CheckConstraint('outstanding >= 0 AND outstanding <= amount', name=op.f('ck_claims_outstanding')),
    sa.ForeignKeyConstraint(['insurer_id'], ['payers.id'], name=op.f('fk_claims_insurer_id_payers')),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_claims_patient_id_patients')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_claims'))
    )
    op.create_index(op.f('ix_claims_insurer_id'), 'claims', ['insurer_id'], unique=False)
    op.create_table('coverages',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('payer_id', sa.Uuid(), nullable=False),
    sa.Column('member_id', sa.String(length=64), nullable=False),
    sa.Column('group_number', sa.String(length=64), nullable=True),
    sa.Column('subscriber_relationship', sa.String(length=20), nullable=False),
    sa.Column('subscriber_name', sa.String(length=200), nullable=True),
    sa.Column('subscriber_birth_date', sa.Date(), nullable=True),
    sa.Column('period_start', sa.Date(), nullable=True),
    sa.Column('period_end', sa.Date(), nullable=True),
    sa.Column('confirmation_status', sa.String(length=20), nullable=False),
    sa.Column('coverage_active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("NOT coverage_active OR confirmation_status = 'confirmed'", name=op.f('ck_coverages_active_confirmed')),
    sa.CheckConstraint("confirmation_status IN ('unconfirmed', 'confirmed')", name=op.f('ck_coverages_confirmation_status')),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_coverages_patient_id_patients')),
    sa.ForeignKeyConstraint(['payer_id'], ['payers.id'], name=op.f('fk_coverages_payer_id_payers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_coverages')),
    sa.UniqueConstraint('patient_id', 'payer_id', name=op.f('uq_coverages_patient_id'))
    )
    op.create_index(op.f('ix_coverages_patient_id'), 'coverages', ['patient_id'], unique=False)
    op.create_index(op.f('ix_coverages_updated_at'), 'coverages', ['updated_at'], unique=False)
    op.create_table('dispensing_enrollments',
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_dispensing_enrollments_patient_id_patients')),
    sa.PrimaryKeyConstraint('workspace_id', 'patient_id', name=op.f('pk_dispensing_enrollments'))
    )
    op.create_index(op.f('ix_dispensing_enrollments_patient_id'), 'dispensing_enrollments', ['patient_id'], unique=False)
    op.create_table('dispensings',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('medicine_name', sa.String(length=200), nullable=False),
    sa.Column('generic_name', sa.String(length=200), nullable=True),
    sa.Column('brand_name', sa.String(length=200), nullable=True),
    sa.Column('identifiers', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('days_supply', sa.Integer(), nullable=False),
    sa.Column('dispensed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('check_state', sa.String(length=20), nullable=False),
    sa.Column('flags', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('evidence', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('reason_code', sa.String(length=30), nullable=True),
    sa.Column('reason_text', sa.String(length=500), nullable=True),
    sa.Column('price', sa.Numeric(precision=18, scale=4), nullable=True),
    sa.Column('pharmacist_id', sa.Uuid(), nullable=True),
    sa.Column('pharmacist_name', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("check_state IN ('clear', 'flagged', 'overridden')", name=op.f('ck_dispensings_check_state')),
    sa.CheckConstraint('days_supply > 0', name=op.f('ck_dispensings_days_supply')),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_dispensings_patient_id_patients')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_dispensings'))
    )
    op.create_index(op.f('ix_dispensings_dispensed_at'), 'dispensings', ['dispensed_at'], unique=False)
    op.create_index(op.f('ix_dispensings_patient_id'), 'dispensings', ['patient_id'], unique=False)
    op.create_table('insurer_links',
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('payer_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['payer_id'], ['payers.id'], name=op.f('fk_insurer_links_payer_id_payers')),
    sa.PrimaryKeyConstraint('workspace_id', name=op.f('pk_insurer_links'))
    )
    op.create_table('payment_advices',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('insurance_company_id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('paid_on', sa.Date(), nullable=False),
    sa.Column('amount', sa.Numeric(precision=18, scale=4), nullable=False),
    sa.Column('currency', sa.String(length=10), nullable=False),
    sa.Column('method', sa.String(length=20), nullable=False),
    sa.Column('reference', sa.String(length=200), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('decline_reason', sa.String(length=500), nullable=True),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('advised', 'recorded', 'declined')", name=op.f('ck_payment_advices_status')),
    sa.CheckConstraint('amount > 0', name=op.f('ck_payment_advices_amount_positive')),
    sa.ForeignKeyConstraint(['insurance_company_id'], ['payers.id'], name=op.f('fk_payment_advices_insurance_company_id_payers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_payment_advices'))
    )
    op.create_index(op.f('ix_payment_advices_insurance_company_id'), 'payment_advices', ['insurance_company_id'], unique=False)
    op.create_table('payment_advice_allocations',
    sa.Column('advice_id', sa.Uuid(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('claim_id', sa.Uuid(), nullable=False),
    sa.Column('amount', sa.Numeric(precision=18, scale=4), nullable=False),
    sa.CheckConstraint('amount > 0', name=op.f('ck_payment_advice_allocations_amount_positive')),
    sa.ForeignKeyConstraint(['advice_id'], ['payment_advices.id'], name=op.f('fk_payment_advice_allocations_advice_id_payment_advices')),
    sa.ForeignKeyConstraint(['claim_id'], ['claims.id'], name=op.f('fk_payment_advice_allocations_claim_id_claims')),
    sa.PrimaryKeyConstraint('advice_id', 'position', name=op.f('pk_payment_advice_allocations'))
    )
    op.create_index(op.f('ix_payment_advice_allocations_claim_id'), 'payment_advice_allocations', ['claim_id'], unique=False)


def downgrade():
    for table in ('payment_advice_allocations', 'payment_advices', 'insurer_links', 'dispensings',
                  'dispensing_enrollments', 'coverages', 'claims', 'payers'):
        op.drop_table(table)
