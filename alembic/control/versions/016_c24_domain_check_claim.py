"""domain check claim: when the check of a workspace's domain that is running now began

Revision ID: c24_domain_check_claim
Revises: c23_idempotency_claim

Expand only: one nullable column. A check claims its workspace's row (sets it) in a short transaction of its
own, waits on DNS holding no connection, then records its result and clears it
(clinicrecords/onboarding/verification.py). Code of the previous version neither sets nor reads it.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c24_domain_check_claim'
down_revision = 'c23_idempotency_claim'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('workspace_domains', sa.Column('check_started_at', sa.DateTime(timezone=True), nullable=True),
                  schema='control')


def downgrade():
    op.drop_column('workspace_domains', 'check_started_at', schema='control')
