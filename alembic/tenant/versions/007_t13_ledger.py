"""stock ledger: movements, accepted till batches and their lines

Revision ID: t13_ledger
Revises: t07_insurance
"""

from alembic import op
import sqlalchemy as sa

revision = 't13_ledger'
down_revision = 't07_insurance'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('stock_batches',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('reference', sa.String(length=100), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_stock_batches'))
    )
    op.create_index(op.f('ix_stock_batches_created_at'), 'stock_batches', ['created_at'], unique=False)
    op.create_table('stock_batch_lines',
    sa.Column('batch_id', sa.Uuid(), nullable=False),
    sa.Column('item_id', sa.Uuid(), nullable=False),
    sa.Column('quantity', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['batch_id'], ['stock_batches.id'], name=op.f('fk_stock_batch_lines_batch_id_stock_batches')),
    sa.PrimaryKeyConstraint('batch_id', 'item_id', name=op.f('pk_stock_batch_lines'))
    )
    op.create_table('stock_movements',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('item_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('change', sa.Integer(), nullable=False),
    sa.Column('quantity_after', sa.Integer(), nullable=False),
    sa.Column('lot', sa.String(length=64), nullable=True),
    sa.Column('expires_on', sa.Date(), nullable=True),
    sa.Column('reason', sa.String(length=500), nullable=True),
    sa.Column('reference', sa.String(length=100), nullable=True),
    sa.Column('source', sa.String(length=10), nullable=False),
    sa.Column('batch_id', sa.Uuid(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint('change <> 0', name=op.f('ck_stock_movements_change')),
    sa.CheckConstraint('quantity_after >= 0', name=op.f('ck_stock_movements_quantity_after')),
    sa.ForeignKeyConstraint(['batch_id'], ['stock_batches.id'], name=op.f('fk_stock_movements_batch_id_stock_batches')),
    sa.ForeignKeyConstraint(['item_id'], ['inventory_items.id'], name=op.f('fk_stock_movements_item_id_inventory_items')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_stock_movements'))
    )
    op.create_index(op.f('ix_stock_movements_batch_id'), 'stock_movements', ['batch_id'], unique=False)
    op.create_index('ix_stock_movements_item_id_created_at', 'stock_movements', ['item_id', 'created_at', 'id'],
                    unique=False)
    # Existing stock becomes its opening balance: an adjustment per item that has stock, so that every
    # item's quantity equals the sum of its movements from the first day of the ledger.
    op.execute(
        "INSERT INTO stock_movements (id, item_id, kind, change, quantity_after, reason, source, created_at) "
        "SELECT gen_random_uuid(), id, 'adjustment', quantity, quantity, 'opening balance', 'staff', "
        "stock_changed_at FROM inventory_items WHERE quantity > 0")


def downgrade():
    op.drop_index('ix_stock_movements_item_id_created_at', table_name='stock_movements')
    op.drop_index(op.f('ix_stock_movements_batch_id'), table_name='stock_movements')
    op.drop_table('stock_movements')
    op.drop_table('stock_batch_lines')
    op.drop_index(op.f('ix_stock_batches_created_at'), table_name='stock_batches')
    op.drop_table('stock_batches')
