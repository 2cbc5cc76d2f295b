"""audit trail: the append-only audit_log

Revision ID: t11_audit
Revises: t13_scheduling
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from clinicrecords.audit.models import APPEND_ONLY_FUNCTION, APPEND_ONLY_TRIGGER

revision = 't11_audit'
down_revision = 't13_scheduling'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('audit_log',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('request_id', sa.String(length=64), nullable=False),
    sa.Column('key_id', sa.String(length=64), nullable=True),
    sa.Column('owner_kind', sa.String(length=16), nullable=True),
    sa.Column('owner_id', sa.Uuid(), nullable=True),
    sa.Column('method', sa.String(length=10), nullable=False),
    sa.Column('route', sa.String(length=300), nullable=False),
    sa.Column('record_ids', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log'))
    )
    op.create_index(op.f('ix_audit_log_at'), 'audit_log', ['at'], unique=False)
    op.create_index(op.f('ix_audit_log_key_id'), 'audit_log', ['key_id'], unique=False)
    # search_path is the clinic's schema during a migration (prepare_migration_transaction).
    op.execute(APPEND_ONLY_FUNCTION)
    op.execute(APPEND_ONLY_TRIGGER)


def downgrade():
    op.execute("DROP TRIGGER audit_log_append_only ON audit_log")
    op.execute("DROP FUNCTION audit_log_append_only()")
    op.drop_index(op.f('ix_audit_log_key_id'), table_name='audit_log')
    op.drop_index(op.f('ix_audit_log_at'), table_name='audit_log')
    op.drop_table('audit_log')
