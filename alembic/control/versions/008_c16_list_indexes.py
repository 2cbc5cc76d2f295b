"""listing_clinics: the pharmacies list is keyset-paged on (display_name, clinic_id)

Revision ID: c16_list_indexes
Revises: c15_webhook_secret_crypto
"""

from alembic import op

revision = 'c16_list_indexes'
down_revision = 'c15_webhook_secret_crypto'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('ix_listing_clinics_display_name_clinic_id', 'listing_clinics',
                    ['display_name', 'clinic_id'], unique=False, schema='control')


def downgrade():
    op.drop_index('ix_listing_clinics_display_name_clinic_id', table_name='listing_clinics', schema='control')
