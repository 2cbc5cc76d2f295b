"""workspace_domains and business_profiles: domain verification and the business profile's review

Revision ID: c17_workspace_onboarding
Revises: c16_list_indexes

New tables only. Workspaces verified before this revision (operator flag) stay verified: the flag is what
the live-key gate reads, and only a domain's lapse or change clears it.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c17_workspace_onboarding'
down_revision = 'c16_list_indexes'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'workspace_domains',
        sa.Column('workspace_id', sa.Uuid(), nullable=False),
        sa.Column('domain', sa.String(length=253), nullable=False),
        sa.Column('txt_value', sa.String(length=100), nullable=False),
        sa.Column('state', sa.String(length=10), nullable=False),
        sa.Column('schedule_started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('next_check_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('last_check_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('last_result', sa.String(length=20), nullable=True),
        sa.Column('absent_checks', sa.Integer(), nullable=False),
        sa.Column('verified_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('lapsed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('lapse_reason', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
        sa.CheckConstraint("state IN ('pending', 'verified', 'lapsed')",
                           name=op.f('ck_workspace_domains_state')),
        sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'],
                                name=op.f('fk_workspace_domains_workspace_id_workspaces')),
        sa.PrimaryKeyConstraint('workspace_id', name=op.f('pk_workspace_domains')),
        schema='control',
    )
    op.create_index(op.f('ix_workspace_domains_next_check_at'), 'workspace_domains', ['next_check_at'],
                    unique=False, schema='control')
    op.create_table(
        'business_profiles',
        sa.Column('workspace_id', sa.Uuid(), nullable=False),
        sa.Column('legal_name', sa.String(length=200), nullable=False),
        sa.Column('website', sa.String(length=2048), nullable=False),
        sa.Column('country', sa.String(length=2), nullable=False),
        sa.Column('contact_email', sa.String(length=254), nullable=False),
        sa.Column('intended_use', sa.String(length=2000), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('submitted_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('review_reason', sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('submitted', 'approved', 'rejected')",
                           name=op.f('ck_business_profiles_status')),
        sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'],
                                name=op.f('fk_business_profiles_workspace_id_workspaces')),
        sa.PrimaryKeyConstraint('workspace_id', name=op.f('pk_business_profiles')),
        schema='control',
    )


def downgrade():
    op.drop_table('business_profiles', schema='control')
    op.drop_index(op.f('ix_workspace_domains_next_check_at'), table_name='workspace_domains',
                  schema='control')
    op.drop_table('workspace_domains', schema='control')
