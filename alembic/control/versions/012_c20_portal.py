"""portal: accounts, sessions, members, invitations, API Terms acceptances, the portal audit trail, per-day
usage; keys' last-use address and roll link

Revision ID: c20_portal
Revises: c19_request_log

Expand only: new tables, and new columns that are nullable or have a server default.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c20_portal'
down_revision = 'c19_request_log'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('portal_accounts',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('password_hash', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('password_changed_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_portal_accounts')),
    sa.UniqueConstraint('email', name=op.f('uq_portal_accounts_email')),
    schema='control'
    )
    op.create_table('portal_login_failures',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('address', sa.String(length=64), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_portal_login_failures')),
    schema='control'
    )
    op.create_index(op.f('ix_control_portal_login_failures_address'), 'portal_login_failures', ['address'], unique=False, schema='control')
    op.create_index(op.f('ix_control_portal_login_failures_at'), 'portal_login_failures', ['at'], unique=False, schema='control')
    op.create_index(op.f('ix_control_portal_login_failures_email'), 'portal_login_failures', ['email'], unique=False, schema='control')
    op.create_table('portal_sessions',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('token_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('csrf_token', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['account_id'], ['control.portal_accounts.id'], name=op.f('fk_portal_sessions_account_id_portal_accounts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_portal_sessions')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_portal_sessions_token_hash')),
    schema='control'
    )
    op.create_index(op.f('ix_control_portal_sessions_account_id'), 'portal_sessions', ['account_id'], unique=False, schema='control')
    op.create_table('workspace_members',
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("role IN ('owner', 'developer')", name=op.f('ck_workspace_members_role')),
    sa.ForeignKeyConstraint(['account_id'], ['control.portal_accounts.id'], name=op.f('fk_workspace_members_account_id_portal_accounts')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_workspace_members_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('workspace_id', 'account_id', name=op.f('pk_workspace_members')),
    schema='control'
    )
    op.create_index(op.f('ix_control_workspace_members_account_id'), 'workspace_members', ['account_id'], unique=False, schema='control')
    op.create_table('workspace_invitations',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('token_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('invited_by', sa.Uuid(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('accepted_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("role IN ('owner', 'developer')", name=op.f('ck_workspace_invitations_role')),
    sa.ForeignKeyConstraint(['invited_by'], ['control.portal_accounts.id'], name=op.f('fk_workspace_invitations_invited_by_portal_accounts')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_workspace_invitations_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_workspace_invitations')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_workspace_invitations_token_hash')),
    schema='control'
    )
    op.create_index(op.f('ix_control_workspace_invitations_workspace_id'), 'workspace_invitations', ['workspace_id'], unique=False, schema='control')
    op.create_table('terms_acceptances',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('version', sa.String(length=20), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=True),
    sa.Column('accepted_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['control.portal_accounts.id'], name=op.f('fk_terms_acceptances_account_id_portal_accounts')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_terms_acceptances_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_terms_acceptances')),
    schema='control'
    )
    op.create_index(op.f('ix_control_terms_acceptances_workspace_id'), 'terms_acceptances', ['workspace_id'], unique=False, schema='control')
    op.create_table('portal_audit',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=True),
    sa.Column('workspace_id', sa.Uuid(), nullable=True),
    sa.Column('action', sa.String(length=64), nullable=False),
    sa.Column('target', sa.String(length=200), nullable=True),
    sa.Column('details', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['control.portal_accounts.id'], name=op.f('fk_portal_audit_account_id_portal_accounts')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_portal_audit_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_portal_audit')),
    schema='control'
    )
    op.create_index(op.f('ix_control_portal_audit_at'), 'portal_audit', ['at'], unique=False, schema='control')
    op.create_index(op.f('ix_control_portal_audit_workspace_id'), 'portal_audit', ['workspace_id'], unique=False, schema='control')
    op.create_table('workspace_usage_daily',
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('mode', sa.String(length=4), nullable=False),
    sa.Column('requests', sa.BigInteger(), nullable=False),
    sa.CheckConstraint("mode IN ('live', 'test')", name=op.f('ck_workspace_usage_daily_mode')),
    sa.PrimaryKeyConstraint('workspace_id', 'day', 'mode', name=op.f('pk_workspace_usage_daily')),
    schema='control'
    )
    op.add_column('api_keys', sa.Column('last_used_address', sa.String(length=64), nullable=True), schema='control')
    op.add_column('api_keys', sa.Column('rolled_from_id', sa.Uuid(), nullable=True), schema='control')


def downgrade():
    op.drop_column('api_keys', 'rolled_from_id', schema='control')
    op.drop_column('api_keys', 'last_used_address', schema='control')
    op.drop_table('workspace_usage_daily', schema='control')
    op.drop_index(op.f('ix_control_portal_audit_at'), table_name='portal_audit', schema='control')
    op.drop_index(op.f('ix_control_portal_audit_workspace_id'), table_name='portal_audit', schema='control')
    op.drop_table('portal_audit', schema='control')
    op.drop_index(op.f('ix_control_terms_acceptances_workspace_id'), table_name='terms_acceptances', schema='control')
    op.drop_table('terms_acceptances', schema='control')
    op.drop_index(op.f('ix_control_workspace_invitations_workspace_id'), table_name='workspace_invitations', schema='control')
    op.drop_table('workspace_invitations', schema='control')
    op.drop_index(op.f('ix_control_workspace_members_account_id'), table_name='workspace_members', schema='control')
    op.drop_table('workspace_members', schema='control')
    op.drop_index(op.f('ix_control_portal_sessions_account_id'), table_name='portal_sessions', schema='control')
    op.drop_table('portal_sessions', schema='control')
    op.drop_index(op.f('ix_control_portal_login_failures_address'), table_name='portal_login_failures', schema='control')
    op.drop_index(op.f('ix_control_portal_login_failures_at'), table_name='portal_login_failures', schema='control')
    op.drop_index(op.f('ix_control_portal_login_failures_email'), table_name='portal_login_failures', schema='control')
    op.drop_table('portal_login_failures', schema='control')
    op.drop_table('portal_accounts', schema='control')
