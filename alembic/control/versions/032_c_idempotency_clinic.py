"""idempotency records: the clinic the write entered

Revision ID: c_idempotency_clinic
Revises: c_names_without_links

A clinic's restore forgets the answers stored after its point in time for writes to that clinic, so a retry
writes again instead of replaying an answer about what the restore undid. A connected workspace's answer was
found only by its Location, which a PATCH or DELETE has not: `clinic_id` names the clinic the request entered.
Nullable, nothing rewritten: rows stored before it (24 hours of retention at most) are still found by their
owner or Location. No index: the restore's DELETE narrows by created_at first, and every write would pay for one.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c_idempotency_clinic'
down_revision = 'c_names_without_links'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('idempotency_records', sa.Column('clinic_id', sa.Uuid(), nullable=True), schema='control')


def downgrade():
    op.drop_column('idempotency_records', 'clinic_id', schema='control')
