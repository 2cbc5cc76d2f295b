"""inventory items and the till's freshness

Revision ID: t08_inventory
Revises: t05_clinical
"""

from alembic import op
import sqlalchemy as sa

revision = 't08_inventory'
down_revision = 't05_clinical'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('inventory_items',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('generic_name', sa.String(length=200), nullable=True),
    sa.Column('brand_name', sa.String(length=200), nullable=True),
    sa.Column('gtin', sa.String(length=14), nullable=True),
    sa.Column('regulator_numbers', sa.ARRAY(sa.String(length=64)), nullable=False),
    sa.Column('quantity', sa.Integer(), nullable=False),
    sa.Column('low_at', sa.Integer(), nullable=False),
    sa.Column('linked', sa.Boolean(), nullable=False),
    sa.Column('stock_changed_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint('low_at >= 0', name=op.f('ck_inventory_items_low_at')),
    sa.CheckConstraint('quantity >= 0', name=op.f('ck_inventory_items_quantity')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inventory_items'))
    )
    op.create_index(op.f('ix_inventory_items_gtin'), 'inventory_items', ['gtin'], unique=False)
    op.create_index(op.f('ix_inventory_items_updated_at'), 'inventory_items', ['updated_at'], unique=False)
    op.create_table('till_state',
    sa.Column('id', sa.SmallInteger(), nullable=False),
    sa.Column('last_reported_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('stale_since', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_till_state'))
    )


def downgrade():
    op.drop_table('till_state')
    op.drop_index(op.f('ix_inventory_items_updated_at'), table_name='inventory_items')
    op.drop_index(op.f('ix_inventory_items_gtin'), table_name='inventory_items')
    op.drop_table('inventory_items')
