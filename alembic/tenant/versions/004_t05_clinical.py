"""clinical items and the review queue

Revision ID: t05_clinical
Revises: t09_events
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 't05_clinical'
down_revision = 't09_events'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('allergies',
    sa.Column('entry', sa.String(length=20), nullable=False),
    sa.Column('substance_text', sa.String(length=200), nullable=True),
    sa.Column('substance_rxnorm', sa.String(length=20), nullable=True),
    sa.Column('clinical_status', sa.String(length=20), nullable=False),
    sa.Column('category', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('criticality', sa.String(length=20), nullable=True),
    sa.Column('type', sa.String(length=20), nullable=True),
    sa.Column('reactions', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('onset_date', sa.Date(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('verification_status', sa.String(length=20), nullable=False),
    sa.Column('accepted_by', sa.String(length=10), nullable=True),
    sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reviewed_by_staff_id', sa.Uuid(), nullable=True),
    sa.Column('source_submission_id', sa.Uuid(), nullable=True),
    sa.Column('origin_assistant_name', sa.String(length=200), nullable=True),
    sa.Column('note', sa.String(length=2000), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_allergies'))
    )
    op.create_index(op.f('ix_allergies_patient_id'), 'allergies', ['patient_id'], unique=False)
    op.create_index('ix_allergies_updated_at', 'allergies', ['updated_at'], unique=False)
    op.create_table('auto_accept_pauses',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('sender_type', sa.String(length=10), nullable=False),
    sa.Column('sender_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('paused_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('accepted_in_window', sa.Integer(), nullable=False),
    sa.Column('threshold', sa.Integer(), nullable=False),
    sa.Column('window_minutes', sa.Integer(), nullable=False),
    sa.Column('submission_id', sa.Uuid(), nullable=False),
    sa.Column('resumed_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_auto_accept_pauses'))
    )
    op.create_index(op.f('ix_auto_accept_pauses_sender_id'), 'auto_accept_pauses', ['sender_id'], unique=False)
    op.create_table('auto_accept_settings',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('sender_type', sa.String(length=10), nullable=False),
    sa.Column('sender_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('connected_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('paused_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_auto_accept_settings')),
    sa.UniqueConstraint('sender_id', 'kind', name=op.f('uq_auto_accept_settings_sender_id'))
    )
    op.create_table('conditions',
    sa.Column('icd10_code', sa.String(length=10), nullable=False),
    sa.Column('display', sa.String(length=200), nullable=False),
    sa.Column('clinical_status', sa.String(length=20), nullable=False),
    sa.Column('onset_date', sa.Date(), nullable=True),
    sa.Column('abatement_date', sa.Date(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('verification_status', sa.String(length=20), nullable=False),
    sa.Column('accepted_by', sa.String(length=10), nullable=True),
    sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reviewed_by_staff_id', sa.Uuid(), nullable=True),
    sa.Column('source_submission_id', sa.Uuid(), nullable=True),
    sa.Column('origin_assistant_name', sa.String(length=200), nullable=True),
    sa.Column('note', sa.String(length=2000), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_conditions'))
    )
    op.create_index(op.f('ix_conditions_patient_id'), 'conditions', ['patient_id'], unique=False)
    op.create_index('ix_conditions_updated_at', 'conditions', ['updated_at'], unique=False)
    op.create_table('medication_statements',
    sa.Column('medication_text', sa.String(length=200), nullable=False),
    sa.Column('medication_rxnorm', sa.String(length=20), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('dosage_text', sa.String(length=200), nullable=True),
    sa.Column('effective_start', sa.Date(), nullable=True),
    sa.Column('effective_end', sa.Date(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('verification_status', sa.String(length=20), nullable=False),
    sa.Column('accepted_by', sa.String(length=10), nullable=True),
    sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reviewed_by_staff_id', sa.Uuid(), nullable=True),
    sa.Column('source_submission_id', sa.Uuid(), nullable=True),
    sa.Column('origin_assistant_name', sa.String(length=200), nullable=True),
    sa.Column('note', sa.String(length=2000), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_medication_statements'))
    )
    op.create_index(op.f('ix_medication_statements_patient_id'), 'medication_statements', ['patient_id'], unique=False)
    op.create_index('ix_medication_statements_updated_at', 'medication_statements', ['updated_at'], unique=False)
    op.create_table('referrals',
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('status_reason', sa.String(length=2000), nullable=True),
    sa.Column('reason_code', sa.String(length=10), nullable=False),
    sa.Column('reason_text', sa.String(length=200), nullable=True),
    sa.Column('specialty', sa.String(length=200), nullable=False),
    sa.Column('priority', sa.String(length=10), nullable=False),
    sa.Column('sender_owner_id', sa.Uuid(), nullable=True),
    sa.Column('acted_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('verification_status', sa.String(length=20), nullable=False),
    sa.Column('accepted_by', sa.String(length=10), nullable=True),
    sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reviewed_by_staff_id', sa.Uuid(), nullable=True),
    sa.Column('source_submission_id', sa.Uuid(), nullable=True),
    sa.Column('origin_assistant_name', sa.String(length=200), nullable=True),
    sa.Column('note', sa.String(length=2000), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_referrals'))
    )
    op.create_index(op.f('ix_referrals_patient_id'), 'referrals', ['patient_id'], unique=False)
    op.create_index('ix_referrals_updated_at', 'referrals', ['updated_at'], unique=False)
    op.create_table('submissions',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('resource_type', sa.String(length=30), nullable=False),
    sa.Column('action', sa.String(length=30), nullable=False),
    sa.Column('review_status', sa.String(length=10), nullable=False),
    sa.Column('target_id', sa.Uuid(), nullable=False),
    sa.Column('accepted_automatically', sa.Boolean(), nullable=False),
    sa.Column('source', sa.String(length=10), nullable=False),
    sa.Column('submitted_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('decision_reason', sa.String(length=2000), nullable=True),
    sa.Column('decided_by_staff_id', sa.Uuid(), nullable=True),
    sa.Column('result_record_id', sa.Uuid(), nullable=True),
    sa.Column('client_reference', sa.String(length=200), nullable=True),
    sa.Column('origin_assistant_name', sa.String(length=200), nullable=True),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('api_key_id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=True),
    sa.Column('sender_owner_id', sa.Uuid(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_submissions'))
    )
    op.create_index(op.f('ix_submissions_patient_id'), 'submissions', ['patient_id'], unique=False)
    op.create_index(op.f('ix_submissions_review_status'), 'submissions', ['review_status'], unique=False)
    op.create_index('ix_submissions_sender_submitted', 'submissions', ['sender_owner_id', 'submitted_at'], unique=False)
    op.create_index('uq_submissions_sender_reference', 'submissions', ['sender_owner_id', 'client_reference'], unique=True, postgresql_where=sa.text('client_reference IS NOT NULL'))


def downgrade():
    op.drop_index('uq_submissions_sender_reference', table_name='submissions', postgresql_where=sa.text('client_reference IS NOT NULL'))
    op.drop_index('ix_submissions_sender_submitted', table_name='submissions')
    op.drop_index(op.f('ix_submissions_review_status'), table_name='submissions')
    op.drop_index(op.f('ix_submissions_patient_id'), table_name='submissions')
    op.drop_table('submissions')
    op.drop_index('ix_referrals_updated_at', table_name='referrals')
    op.drop_index(op.f('ix_referrals_patient_id'), table_name='referrals')
    op.drop_table('referrals')
    op.drop_index('ix_medication_statements_updated_at', table_name='medication_statements')
    op.drop_index(op.f('ix_medication_statements_patient_id'), table_name='medication_statements')
    op.drop_table('medication_statements')
    op.drop_index('ix_conditions_updated_at', table_name='conditions')
    op.drop_index(op.f('ix_conditions_patient_id'), table_name='conditions')
    op.drop_table('conditions')
    op.drop_table('auto_accept_settings')
    op.drop_index(op.f('ix_auto_accept_pauses_sender_id'), table_name='auto_accept_pauses')
    op.drop_table('auto_accept_pauses')
    op.drop_index('ix_allergies_updated_at', table_name='allergies')
    op.drop_index(op.f('ix_allergies_patient_id'), table_name='allergies')
    op.drop_table('allergies')
