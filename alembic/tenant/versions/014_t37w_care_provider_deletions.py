"""care_provider_deletions: a removed outside care provider's id and patient, for bulk exports since then

Revision ID: t37w_care_provider_deletions
Revises: t21_key_setting_connection

A new empty table and its index: cheap on every schema (docs/performance.md, "Tenant scale"). Bulk export (docs/decisions/0101-bulk-export-deleted.md): an
export with `_since` names the contacts removed since (the manifest's `deleted`).
"""

import sqlalchemy as sa
from alembic import op

revision = 't37w_care_provider_deletions'
down_revision = 't21_key_setting_connection'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "care_provider_deletions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("patient_id", sa.Uuid(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_care_provider_deletions")),
    )
    op.create_index(op.f("ix_care_provider_deletions_deleted_at"), "care_provider_deletions", ["deleted_at"],
                    unique=False)


def downgrade():
    op.drop_index(op.f("ix_care_provider_deletions_deleted_at"), table_name="care_provider_deletions")
    op.drop_table("care_provider_deletions")
