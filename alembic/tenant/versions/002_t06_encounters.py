"""clinicians, prescriptions, encounters, outside care providers, patient imports

Revision ID: t06_encounters
Revises: t0001
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 't06_encounters'
down_revision = 't0001'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('providers',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('given_name', sa.String(length=100), nullable=False),
    sa.Column('family_name', sa.String(length=100), nullable=False),
    sa.Column('role', sa.String(length=40), nullable=False),
    sa.Column('specialties', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('npi', sa.String(length=10), nullable=True),
    sa.Column('licences', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_providers'))
    )
    op.create_index(op.f('ix_providers_updated_at'), 'providers', ['updated_at'], unique=False)
    op.create_table('prescriptions',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('drug', sa.String(length=200), nullable=False),
    sa.Column('dose', sa.String(length=100), nullable=False),
    sa.Column('frequency', sa.String(length=100), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('source', sa.String(length=20), nullable=False),
    sa.Column('written_on', sa.Date(), nullable=False),
    sa.Column('start_date', sa.Date(), nullable=True),
    sa.Column('end_date', sa.Date(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_prescriptions_patient_id_patients')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_prescriptions'))
    )
    op.create_index(op.f('ix_prescriptions_patient_id'), 'prescriptions', ['patient_id'], unique=False)
    op.create_index(op.f('ix_prescriptions_updated_at'), 'prescriptions', ['updated_at'], unique=False)
    op.create_table('encounters',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('encounter_class', sa.String(length=20), nullable=False),
    sa.Column('type', sa.String(length=100), nullable=True),
    sa.Column('reason', sa.String(length=500), nullable=True),
    sa.Column('start_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('opened_by_owner_id', sa.Uuid(), nullable=True),
    sa.Column('touched_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('signed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('sensitive', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_encounters_patient_id_patients')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_encounters_provider_id_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_encounters'))
    )
    op.create_index(op.f('ix_encounters_patient_id'), 'encounters', ['patient_id'], unique=False)
    op.create_index(op.f('ix_encounters_updated_at'), 'encounters', ['updated_at'], unique=False)
    op.create_table('care_providers',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=False),
    sa.Column('type', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('is_primary', sa.Boolean(), nullable=False),
    sa.Column('source', sa.String(length=10), nullable=False),
    sa.Column('added_by_owner_id', sa.Uuid(), nullable=True),
    sa.Column('practice_name', sa.String(length=200), nullable=True),
    sa.Column('specialty', sa.String(length=100), nullable=True),
    sa.Column('npi', sa.String(length=10), nullable=True),
    sa.Column('phone', sa.String(length=40), nullable=True),
    sa.Column('fax', sa.String(length=40), nullable=True),
    sa.Column('address', sa.String(length=500), nullable=True),
    sa.Column('origin_assistant_name', sa.String(length=100), nullable=True),
    sa.Column('clinic_notes', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['patient_id'], ['patients.id'], name=op.f('fk_care_providers_patient_id_patients')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_care_providers'))
    )
    op.create_index(op.f('ix_care_providers_patient_id'), 'care_providers', ['patient_id'], unique=False)
    op.create_index(op.f('ix_care_providers_updated_at'), 'care_providers', ['updated_at'], unique=False)
    op.create_table('patient_imports',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('input_format', sa.String(length=20), nullable=False),
    sa.Column('row_count', sa.Integer(), nullable=False),
    sa.Column('last_processed_row', sa.Integer(), nullable=False),
    sa.Column('counts', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('row_errors', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('rows', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('started_by', sa.String(length=20), nullable=False),
    sa.Column('started_by_key_id', sa.String(length=32), nullable=True),
    sa.Column('valid_only_run_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_patient_imports'))
    )
    op.create_index(op.f('ix_patient_imports_content_hash'), 'patient_imports', ['content_hash'], unique=False)
    op.create_table('patient_import_rows',
    sa.Column('import_id', sa.Uuid(), nullable=False),
    sa.Column('row', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('row_hash', sa.String(length=64), nullable=False),
    sa.Column('outcome', sa.String(length=30), nullable=False),
    sa.Column('patient_id', sa.Uuid(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['import_id'], ['patient_imports.id'], name=op.f('fk_patient_import_rows_import_id_patient_imports')),
    sa.PrimaryKeyConstraint('import_id', 'row', name=op.f('pk_patient_import_rows'))
    )
    op.create_index(op.f('ix_patient_import_rows_row_hash'), 'patient_import_rows', ['row_hash'], unique=False)


def downgrade():
    op.drop_index(op.f('ix_patient_import_rows_row_hash'), table_name='patient_import_rows')
    op.drop_table('patient_import_rows')
    op.drop_index(op.f('ix_patient_imports_content_hash'), table_name='patient_imports')
    op.drop_table('patient_imports')
    op.drop_index(op.f('ix_care_providers_patient_id'), table_name='care_providers')
    op.drop_index(op.f('ix_care_providers_updated_at'), table_name='care_providers')
    op.drop_table('care_providers')
    op.drop_index(op.f('ix_encounters_patient_id'), table_name='encounters')
    op.drop_index(op.f('ix_encounters_updated_at'), table_name='encounters')
    op.drop_table('encounters')
    op.drop_index(op.f('ix_prescriptions_patient_id'), table_name='prescriptions')
    op.drop_index(op.f('ix_prescriptions_updated_at'), table_name='prescriptions')
    op.drop_table('prescriptions')
    op.drop_index(op.f('ix_providers_updated_at'), table_name='providers')
    op.drop_table('providers')
