"""identity: second factors (authenticator apps, passkeys, recovery codes), the workspace rule that requires
them, and sign-ins waiting for their second step

Revision ID: c34f_second_factors
Revises: c33n_notifications

Second factors (docs/decisions/0096-second-factors-what-counts.md to 0098): `authenticator_apps` (a sealed TOTP secret, confirmed or not, and the last time step
used), `passkeys` (WebAuthn credentials, named), `recovery_codes` (hashed, used once), `workspace_factor_rules`
(a workspace whose owner requires a second factor of every member) and `pending_sign_ins` (a browser past the
password whose second step is due, or a password-free passkey ceremony under way).
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c34f_second_factors'
down_revision = 'c33n_notifications'
branch_labels = None
depends_on = None


def _now():
    return sa.text('now()')


def _account_fk(table, column='account_id'):
    return sa.ForeignKeyConstraint([column], ['control.accounts.id'], name=op.f(f'fk_{table}_{column}_accounts'))


def upgrade():
    op.create_table('authenticator_apps',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('sealed_secret', sa.String(length=500), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    sa.Column('confirmed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_used_step', sa.BigInteger(), nullable=True),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    _account_fk('authenticator_apps'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_authenticator_apps')),
    sa.UniqueConstraint('account_id', name=op.f('uq_authenticator_apps_account_id')),
    schema='control'
    )
    op.create_table('passkeys',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('credential_id', sa.LargeBinary(length=1023), nullable=False),
    sa.Column('public_key', sa.LargeBinary(length=2048), nullable=False),
    sa.Column('sign_count', sa.BigInteger(), nullable=False),
    sa.Column('transports', postgresql.ARRAY(sa.String(length=32)), nullable=False),
    sa.Column('user_handle', sa.LargeBinary(length=64), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    _account_fk('passkeys'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_passkeys')),
    sa.UniqueConstraint('credential_id', name=op.f('uq_passkeys_credential_id')),
    schema='control'
    )
    op.create_index(op.f('ix_control_passkeys_account_id'), 'passkeys', ['account_id'], unique=False,
                    schema='control')
    op.create_table('recovery_codes',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('code_hash', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    _account_fk('recovery_codes'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_recovery_codes')),
    schema='control'
    )
    op.create_index(op.f('ix_control_recovery_codes_account_id'), 'recovery_codes', ['account_id'], unique=False,
                    schema='control')
    op.create_table('workspace_factor_rules',
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('required_by', sa.Uuid(), nullable=True),
    sa.Column('required_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    _account_fk('workspace_factor_rules', 'required_by'),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'],
                            name=op.f('fk_workspace_factor_rules_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('workspace_id', name=op.f('pk_workspace_factor_rules')),
    schema='control'
    )
    op.create_table('pending_sign_ins',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('token_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=True),
    sa.Column('challenge', sa.LargeBinary(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=_now(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    _account_fk('pending_sign_ins'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pending_sign_ins')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_pending_sign_ins_token_hash')),
    schema='control'
    )
    op.create_index(op.f('ix_control_pending_sign_ins_account_id'), 'pending_sign_ins', ['account_id'],
                    unique=False, schema='control')
    op.create_index(op.f('ix_control_pending_sign_ins_expires_at'), 'pending_sign_ins', ['expires_at'],
                    unique=False, schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_pending_sign_ins_expires_at'), table_name='pending_sign_ins', schema='control')
    op.drop_index(op.f('ix_control_pending_sign_ins_account_id'), table_name='pending_sign_ins', schema='control')
    op.drop_table('pending_sign_ins', schema='control')
    op.drop_table('workspace_factor_rules', schema='control')
    op.drop_index(op.f('ix_control_recovery_codes_account_id'), table_name='recovery_codes', schema='control')
    op.drop_table('recovery_codes', schema='control')
    op.drop_index(op.f('ix_control_passkeys_account_id'), table_name='passkeys', schema='control')
    op.drop_table('passkeys', schema='control')
    op.drop_table('authenticator_apps', schema='control')
