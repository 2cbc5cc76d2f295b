"""coverages: drop the single-column patient_id index the (patient_id, payer_id) unique constraint already serves

Revision ID: coverages_patient_index_dropped
Revises: t37w_care_provider_deletions

Every relation is paid once per clinic (docs/performance.md, "Tenant scale"). Of a clinic's plain and
foreign-key indexes this is the one no query needs: the btree of `uq_coverages_patient_id` leads with
`patient_id`, so it serves every query the one on (patient_id) served (a patient's coverages, the foreign
key's lookups when a patient row is deleted) at the same planned cost. Every other index has a query whose plan
uses it on a seeded clinic, or backs a foreign key whose referenced rows are deleted (a clinic's restore).
"""

from alembic import op

revision = 'coverages_patient_index_dropped'
down_revision = 't37w_care_provider_deletions'
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_coverages_patient_id", table_name="coverages")


def downgrade():
    op.create_index("ix_coverages_patient_id", "coverages", ["patient_id"], unique=False)
