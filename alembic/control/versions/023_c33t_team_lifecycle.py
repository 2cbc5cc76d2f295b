"""team lifecycle: a workspace closed (when, by whom), a sandbox clinic's schema dropped, an invitation emailed

Revision ID: c33t_team_lifecycle
Revises: c33r_account_links

A team's lifecycle and closing a workspace (docs/decisions/0094-team-lifecycle-closing-workspace.md). A closed workspace keeps its row, so the audit trail and the month's usage export still
resolve it: `closed_at` and `closed_by` say when and by whom. Its sandbox clinic's schema is dropped and its
row stays (keys, audit rows and events name it), marked `schema_dropped_at` so no migration or page opens it
again. An invitation records when it was emailed (an older one was shown on a page only), so its cancellation
is mailed only to someone who received it.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c33t_team_lifecycle'
down_revision = 'c33r_account_links'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('workspaces', sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
                  schema='control')
    op.add_column('workspaces', sa.Column('closed_by', sa.Uuid(), nullable=True), schema='control')
    op.create_foreign_key(op.f('fk_workspaces_closed_by_accounts'), 'workspaces', 'accounts', ['closed_by'],
                          ['id'], source_schema='control', referent_schema='control')
    op.add_column('clinics', sa.Column('schema_dropped_at', sa.DateTime(timezone=True), nullable=True),
                  schema='control')
    op.add_column('invitations', sa.Column('emailed_at', sa.DateTime(timezone=True), nullable=True),
                  schema='control')


def downgrade():
    op.drop_column('invitations', 'emailed_at', schema='control')
    op.drop_column('clinics', 'schema_dropped_at', schema='control')
    op.drop_constraint(op.f('fk_workspaces_closed_by_accounts'), 'workspaces', schema='control',
                       type_='foreignkey')
    op.drop_column('workspaces', 'closed_by', schema='control')
    op.drop_column('workspaces', 'closed_at', schema='control')
