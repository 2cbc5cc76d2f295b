"""mail_outbox: messages written in the transaction that sends them, sent by the worker, retried until sent

Revision ID: c33m_mail_outbox
Revises: c27_connections_list_index

Expand only: a new table.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c33m_mail_outbox'
down_revision = 'c27_connections_list_index'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('mail_outbox',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('message_id', sa.String(length=255), nullable=False),
    sa.Column('template', sa.String(length=64), nullable=False),
    sa.Column('sender', sa.String(length=254), nullable=False),
    sa.Column('recipient', sa.String(length=254), nullable=False),
    sa.Column('subject', sa.String(length=200), nullable=False),
    sa.Column('content', sa.LargeBinary(), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('locked_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('queued_for', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_attempt_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_error', sa.String(length=200), nullable=True),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('pending', 'sent', 'failed')", name=op.f('ck_mail_outbox_status')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mail_outbox')),
    sa.UniqueConstraint('message_id', name=op.f('uq_mail_outbox_message_id')),
    schema='control'
    )
    op.create_index('ix_mail_outbox_due', 'mail_outbox', ['status', 'next_attempt_at'], unique=False, schema='control')
    op.create_index(op.f('ix_mail_outbox_created_at'), 'mail_outbox', ['created_at'], unique=False, schema='control')


def downgrade():
    op.drop_index(op.f('ix_mail_outbox_created_at'), table_name='mail_outbox', schema='control')
    op.drop_index('ix_mail_outbox_due', table_name='mail_outbox', schema='control')
    op.drop_table('mail_outbox', schema='control')
