"""clinic staff: staff memberships and their invitations; connection requests; the portal audit trail's clinic

Revision ID: c21_clinic_staff
Revises: c20_portal

Expand only: new tables, and a new nullable column.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c21_clinic_staff'
down_revision = 'c20_portal'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('clinic_staff',
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("role IN ('admin', 'clinician')", name=op.f('ck_clinic_staff_role')),
    sa.ForeignKeyConstraint(['account_id'], ['control.portal_accounts.id'], name=op.f('fk_clinic_staff_account_id_portal_accounts')),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_clinic_staff_clinic_id_clinics')),
    sa.PrimaryKeyConstraint('clinic_id', 'account_id', name=op.f('pk_clinic_staff')),
    schema='control'
    )
    op.create_index(op.f('ix_control_clinic_staff_account_id'), 'clinic_staff', ['account_id'], unique=False, schema='control')
    op.create_table('clinic_staff_invitations',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('token_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('invited_by', sa.Uuid(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('accepted_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("role IN ('admin', 'clinician')", name=op.f('ck_clinic_staff_invitations_role')),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_clinic_staff_invitations_clinic_id_clinics')),
    sa.ForeignKeyConstraint(['invited_by'], ['control.portal_accounts.id'], name=op.f('fk_clinic_staff_invitations_invited_by_portal_accounts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_clinic_staff_invitations')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_clinic_staff_invitations_token_hash')),
    schema='control'
    )
    op.create_index(op.f('ix_control_clinic_staff_invitations_clinic_id'), 'clinic_staff_invitations', ['clinic_id'], unique=False, schema='control')
    op.create_table('connection_requests',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('scopes', postgresql.ARRAY(sa.String(length=64)), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('requested_by', sa.Uuid(), nullable=True),
    sa.Column('requested_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('granted_scopes', postgresql.ARRAY(sa.String(length=64)), nullable=True),
    sa.Column('decided_by', sa.Uuid(), nullable=True),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('pending', 'approved', 'declined')", name=op.f('ck_connection_requests_status')),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_connection_requests_clinic_id_clinics')),
    sa.ForeignKeyConstraint(['decided_by'], ['control.portal_accounts.id'], name=op.f('fk_connection_requests_decided_by_portal_accounts')),
    sa.ForeignKeyConstraint(['requested_by'], ['control.portal_accounts.id'], name=op.f('fk_connection_requests_requested_by_portal_accounts')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_connection_requests_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_connection_requests')),
    schema='control'
    )
    op.create_index(op.f('ix_control_connection_requests_clinic_id'), 'connection_requests', ['clinic_id'], unique=False, schema='control')
    op.create_index(op.f('ix_control_connection_requests_workspace_id'), 'connection_requests', ['workspace_id'], unique=False, schema='control')
    op.add_column('portal_audit', sa.Column('clinic_id', sa.Uuid(), nullable=True), schema='control')
    op.create_index(op.f('ix_control_portal_audit_clinic_id'), 'portal_audit', ['clinic_id'], unique=False, schema='control')
    op.create_foreign_key(op.f('fk_portal_audit_clinic_id_clinics'), 'portal_audit', 'clinics', ['clinic_id'], ['id'],
                          source_schema='control', referent_schema='control')


def downgrade():
    op.drop_constraint(op.f('fk_portal_audit_clinic_id_clinics'), 'portal_audit', schema='control')
    op.drop_index(op.f('ix_control_portal_audit_clinic_id'), table_name='portal_audit', schema='control')
    op.drop_column('portal_audit', 'clinic_id', schema='control')
    op.drop_index(op.f('ix_control_connection_requests_workspace_id'), table_name='connection_requests', schema='control')
    op.drop_index(op.f('ix_control_connection_requests_clinic_id'), table_name='connection_requests', schema='control')
    op.drop_table('connection_requests', schema='control')
    op.drop_index(op.f('ix_control_clinic_staff_invitations_clinic_id'), table_name='clinic_staff_invitations', schema='control')
    op.drop_table('clinic_staff_invitations', schema='control')
    op.drop_index(op.f('ix_control_clinic_staff_account_id'), table_name='clinic_staff', schema='control')
    op.drop_table('clinic_staff', schema='control')
