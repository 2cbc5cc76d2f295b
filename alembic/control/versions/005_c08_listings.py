"""listing grants and the network search projection

Revision ID: c08_listings
Revises: c09_webhooks

pg_trgm lives in the schema `extensions` (installed there by a superuser, see docs/deployment.md); the
operator class is named with its schema because the application role's search_path is empty.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c08_listings'
down_revision = 'c09_webhooks'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('listing_grants',
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_listing_grants_clinic_id_clinics')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'], name=op.f('fk_listing_grants_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('clinic_id', 'workspace_id', name=op.f('pk_listing_grants')),
    schema='control'
    )
    op.create_index(op.f('ix_control_listing_grants_workspace_id'), 'listing_grants', ['workspace_id'], unique=False, schema='control')
    op.create_table('listing_clinics',
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('display_name', sa.String(length=200), nullable=False),
    sa.Column('lat', sa.Double(), nullable=True),
    sa.Column('lng', sa.Double(), nullable=True),
    sa.Column('sandbox_workspace_id', sa.Uuid(), nullable=True),
    sa.Column('till_reported_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('till_stale_since', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_listing_clinics_clinic_id_clinics')),
    sa.PrimaryKeyConstraint('clinic_id', name=op.f('pk_listing_clinics')),
    sa.UniqueConstraint('sandbox_workspace_id', name=op.f('uq_listing_clinics_sandbox_workspace_id')),
    schema='control'
    )
    op.create_table('listing_items',
    sa.Column('clinic_id', sa.Uuid(), nullable=False),
    sa.Column('item_id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('generic_name', sa.String(length=200), nullable=True),
    sa.Column('brand_name', sa.String(length=200), nullable=True),
    sa.Column('terms', sa.ARRAY(sa.Text()), nullable=False),
    sa.Column('gtin', sa.String(length=14), nullable=True),
    sa.Column('regulator_numbers', sa.ARRAY(sa.Text()), nullable=False),
    sa.Column('band', sa.String(length=10), nullable=False),
    sa.Column('stock_changed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('lat', sa.Double(), nullable=True),
    sa.Column('lng', sa.Double(), nullable=True),
    sa.CheckConstraint("band IN ('in_stock', 'low', 'out')", name=op.f('ck_listing_items_band')),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.listing_clinics.clinic_id'], name=op.f('fk_listing_items_clinic_id_listing_clinics')),
    sa.PrimaryKeyConstraint('clinic_id', 'item_id', name=op.f('pk_listing_items')),
    schema='control'
    )
    op.create_index(op.f('ix_control_listing_items_gtin'), 'listing_items', ['gtin'], unique=False, schema='control')
    op.create_index('ix_listing_items_lat_lng', 'listing_items', ['lat', 'lng'], unique=False, schema='control')
    op.create_index('ix_listing_items_regulator_numbers', 'listing_items', ['regulator_numbers'], unique=False, schema='control', postgresql_using='gin')
    op.create_index('ix_listing_items_terms', 'listing_items', ['terms'], unique=False, schema='control', postgresql_using='gin')
    op.create_table('listing_terms',
    sa.Column('term', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('term', name=op.f('pk_listing_terms')),
    schema='control'
    )
    op.create_index('ix_listing_terms_term_trgm', 'listing_terms', ['term'], unique=False, schema='control', postgresql_using='gin', postgresql_ops={'term': 'extensions.gin_trgm_ops'})
    op.execute(TERM_MATCHES)


# The closest names to a query, always through the trigram index: the planner prices pg_trgm's operator as
# cheap and would rather evaluate word_similarity on every term (60 times slower on 2,000 terms).
TERM_MATCHES = """
CREATE FUNCTION control.listing_term_matches(query text, max_terms integer)
RETURNS TABLE (term text, score real)
LANGUAGE sql STABLE
SET search_path = ''
SET enable_seqscan = off
SET enable_indexscan = off
SET enable_indexonlyscan = off
AS $$
    SELECT t.term, extensions.word_similarity(query, t.term)
    FROM control.listing_terms t
    WHERE t.term OPERATOR(extensions.%>) query
    ORDER BY 2 DESC, t.term
    LIMIT max_terms
$$
"""


def downgrade():
    op.execute("DROP FUNCTION control.listing_term_matches(text, integer)")
    op.drop_index('ix_listing_terms_term_trgm', table_name='listing_terms', schema='control')
    op.drop_table('listing_terms', schema='control')
    op.drop_index('ix_listing_items_terms', table_name='listing_items', schema='control')
    op.drop_index('ix_listing_items_regulator_numbers', table_name='listing_items', schema='control')
    op.drop_index('ix_listing_items_lat_lng', table_name='listing_items', schema='control')
    op.drop_index(op.f('ix_control_listing_items_gtin'), table_name='listing_items', schema='control')
    op.drop_table('listing_items', schema='control')
    op.drop_table('listing_clinics', schema='control')
    op.drop_index(op.f('ix_control_listing_grants_workspace_id'), table_name='listing_grants', schema='control')
    op.drop_table('listing_grants', schema='control')
