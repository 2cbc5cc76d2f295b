"""list indexes: chart item lists are keyset-paged on (created_at, id)

Revision ID: t15_list_indexes
Revises: t11_audit
"""

from alembic import op

revision = 't15_list_indexes'
down_revision = 't11_audit'
branch_labels = None
depends_on = None

TABLES = ("allergies", "conditions", "medication_statements", "referrals")


def upgrade():
    for table in TABLES:
        op.create_index(op.f(f"ix_{table}_created_at_id"), table, ["created_at", "id"], unique=False)


def downgrade():
    for table in TABLES:
        op.drop_index(op.f(f"ix_{table}_created_at_id"), table_name=table)
