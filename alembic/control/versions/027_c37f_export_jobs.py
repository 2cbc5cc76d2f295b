"""exports: Bulk Data export jobs and the files of their finished attempts

Revision ID: c37f_export_jobs
Revises: c34f_second_factors

Bulk export (docs/decisions/0104-bulk-export-job-life.md): `export_jobs` (one $export kick-off: what it asked, its status, the attempt under way, its
watermark and expiry) and `export_files` (the NDJSON files of the job's finished attempt, with the patients
each holds for the download's audit trail). Two new, empty tables: nothing to rewrite.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c37f_export_jobs'
down_revision = 'c34f_second_factors'
branch_labels = None
depends_on = None


def _now():
    return sa.text('now()')


def upgrade():
    op.create_table('export_jobs',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('key_id', sa.String(length=32), nullable=False),
    sa.Column('owner_id', sa.Uuid(), nullable=True),
    sa.Column('granted', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('level', sa.String(length=20), nullable=False),
    sa.Column('types', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('since', sa.DateTime(timezone=True), nullable=True),
    sa.Column('request_url', sa.Text(), nullable=False),
    sa.Column('base_url', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    sa.Column('transaction_time', sa.DateTime(timezone=True), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('next_poll_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_export_jobs_clinic_id_clinics')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_export_jobs')),
    schema='control'
    )
    op.create_index(op.f('ix_control_export_jobs_clinic_id'), 'export_jobs', ['clinic_id'], unique=False,
                    schema='control')
    op.create_index(op.f('ix_control_export_jobs_expires_at'), 'export_jobs', ['expires_at'], unique=False,
                    schema='control')
    op.create_table('export_files',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('job_id', sa.Uuid(), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('section', sa.String(length=10), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('type', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('etag', sa.String(length=128), nullable=False),
    sa.Column('permission', sa.String(length=64), nullable=False),
    sa.Column('patient_ids', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.ForeignKeyConstraint(['job_id'], ['control.export_jobs.id'], name=op.f('fk_export_files_job_id_export_jobs'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_export_files')),
    schema='control'
    )
    op.create_index(op.f('ix_control_export_files_job_id'), 'export_files', ['job_id'], unique=False,
                    schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_export_files_job_id'), table_name='export_files', schema='control')
    op.drop_table('export_files', schema='control')
    op.drop_index(op.f('ix_control_export_jobs_expires_at'), table_name='export_jobs', schema='control')
    op.drop_index(op.f('ix_control_export_jobs_clinic_id'), table_name='export_jobs', schema='control')
    op.drop_table('export_jobs', schema='control')
