"""identity: what the sessions page shows of a session, its re-authentication, and the devices accounts signed
in from

Revision ID: c34s_sessions_devices
Revises: c33t_team_lifecycle

`sessions` gains the browser's user agent, the client address last seen and `reauthenticated_at` (docs/decisions/0091-re-authentication-before-sensitive-actions.md,
docs/decisions/0092-sessions-one-can-see-and-end.md); `known_devices` holds the hash of each device cookie an account signed in with (docs/decisions/0093-security-notices.md: a
sign-in from a new device is mailed). Sessions started before carry no user agent or address (the page says
"unknown") and count as not re-authenticated.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c34s_sessions_devices'
down_revision = 'c33t_team_lifecycle'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('sessions', sa.Column('user_agent', sa.String(length=512), nullable=True), schema='control')
    op.add_column('sessions', sa.Column('address', sa.String(length=64), nullable=True), schema='control')
    op.add_column('sessions', sa.Column('reauthenticated_at', sa.DateTime(timezone=True), nullable=True),
                  schema='control')
    op.create_table('known_devices',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('account_id', sa.Uuid(), nullable=False),
    sa.Column('device_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['control.accounts.id'],
                            name=op.f('fk_known_devices_account_id_accounts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_known_devices')),
    sa.UniqueConstraint('account_id', 'device_hash', name=op.f('uq_known_devices_account_id')),
    schema='control'
    )
    op.create_index(op.f('ix_control_known_devices_last_seen_at'), 'known_devices', ['last_seen_at'],
                    unique=False, schema='control')


def downgrade():
    op.drop_index(op.f('ix_control_known_devices_last_seen_at'), table_name='known_devices', schema='control')
    op.drop_table('known_devices', schema='control')
    op.drop_column('sessions', 'reauthenticated_at', schema='control')
    op.drop_column('sessions', 'address', schema='control')
    op.drop_column('sessions', 'user_agent', schema='control')
