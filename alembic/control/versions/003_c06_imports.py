"""patient imports being written, for resuming them after a worker dies

Revision ID: c06_imports
Revises: c03_access
"""

from alembic import op
import sqlalchemy as sa

revision = 'c06_imports'
down_revision = 'c03_access'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('patient_import_runs',
    sa.Column('import_id', sa.Uuid(), nullable=False),
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('resumes', sa.Integer(), nullable=False),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_patient_import_runs_clinic_id_clinics')),
    sa.PrimaryKeyConstraint('import_id', name=op.f('pk_patient_import_runs')),
    schema='control'
    )
    op.create_index(op.f('ix_control_patient_import_runs_clinic_id'), 'patient_import_runs', ['clinic_id'], unique=False, schema='control')
    op.create_index(op.f('ix_control_patient_import_runs_heartbeat_at'), 'patient_import_runs', ['heartbeat_at'], unique=False, schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_patient_import_runs_clinic_id'), table_name='patient_import_runs', schema='control')
    op.drop_index(op.f('ix_control_patient_import_runs_heartbeat_at'), table_name='patient_import_runs', schema='control')
    op.drop_table('patient_import_runs', schema='control')
