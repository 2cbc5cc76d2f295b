"""identity: single-use emailed links (verify an address, reset a password) and the mail-request throttle

Revision ID: c33r_account_links
Revises: c33i_identity

`account_links` holds the hash of each link mailed for sign-up verification, an email change or a password
reset, with its expiry, use and voiding (docs/decisions/0089-sign-up-verification-password-reset.md); `account_mail_requests` counts the
sign-up and forgotten-password forms that asked for a message, per email and per client address.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c33r_account_links'
down_revision = 'c33i_identity'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('account_links',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('purpose', sa.String(length=16), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('token_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('void_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("purpose IN ('verify_email', 'reset_password')", name=op.f('ck_account_links_purpose')),
    sa.ForeignKeyConstraint(['account_id'], ['control.accounts.id'],
                            name=op.f('fk_account_links_account_id_accounts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_account_links')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_account_links_token_hash')),
    schema='control'
    )
    op.create_index(op.f('ix_control_account_links_account_id'), 'account_links', ['account_id'], unique=False,
                    schema='control')
    op.create_table('account_mail_requests',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('address', sa.String(length=64), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_account_mail_requests')),
    schema='control'
    )
    for column in ('address', 'at', 'email'):
        op.create_index(op.f(f'ix_control_account_mail_requests_{column}'), 'account_mail_requests', [column],
                        unique=False, schema='control')


def downgrade():
    for column in ('address', 'at', 'email'):
        op.drop_index(op.f(f'ix_control_account_mail_requests_{column}'), table_name='account_mail_requests',
                      schema='control')
    op.drop_table('account_mail_requests', schema='control')
    op.drop_index(op.f('ix_control_account_links_account_id'), table_name='account_links', schema='control')
    op.drop_table('account_links', schema='control')
