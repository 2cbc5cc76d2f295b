"""portal: one-time reads, what a POST's answer shows once, stashed sealed for the page it redirects to

Revision ID: c25_one_time_reads
Revises: c24_domain_check_claim

Expand only: a new table (rows live minutes; they go with their session).
"""

from alembic import op
import sqlalchemy as sa

revision = 'c25_one_time_reads'
down_revision = 'c24_domain_check_claim'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('portal_one_time_reads',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('session_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('sealed', sa.LargeBinary(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['control.portal_sessions.id'], name=op.f('fk_portal_one_time_reads_session_id_portal_sessions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_portal_one_time_reads')),
    schema='control'
    )
    op.create_index(op.f('ix_control_portal_one_time_reads_expires_at'), 'portal_one_time_reads', ['expires_at'], unique=False, schema='control')
    op.create_index(op.f('ix_control_portal_one_time_reads_session_id'), 'portal_one_time_reads', ['session_id'], unique=False, schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_portal_one_time_reads_session_id'), table_name='portal_one_time_reads', schema='control')
    op.drop_index(op.f('ix_control_portal_one_time_reads_expires_at'), table_name='portal_one_time_reads', schema='control')
    op.drop_table('portal_one_time_reads')
