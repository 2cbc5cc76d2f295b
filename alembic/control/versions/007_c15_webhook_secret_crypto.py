"""webhook endpoints: signing secrets sealed at rest (AES-GCM, key from secrets.webhook_keys); paused_until

Revision ID: c15_webhook_secret_crypto
Revises: c13_plans

Not expand-then-contract on purpose: keeping the clear columns through a rollout would keep the very
exposure this removes. Existing secrets are sealed and the clear columns dropped in one transaction, so
stop the workers for the migration (pending deliveries wait and are retried) and deploy the new code with
it. Needs the keys: `clinicrecords-admin CONFIG migrate` passes its settings (or `alembic -c CONFIG`).
"""

from alembic import context, op
import sqlalchemy as sa

revision = 'c15_webhook_secret_crypto'
down_revision = 'c13_plans'
branch_labels = None
depends_on = None

ENDPOINTS = sa.table('webhook_endpoints', sa.column('id', sa.Uuid()), sa.column('secret', sa.String()),
                     sa.column('previous_secret', sa.String()), sa.column('secret_sealed', sa.Text()),
                     sa.column('previous_secret_sealed', sa.Text()), schema='control')


def _box(connection, needed_for):
    from clinicrecords.events.secret_box import SETTING, SecretBox

    settings = context.config.attributes.get('settings')
    if settings is None:
        count = connection.execute(sa.select(sa.func.count()).select_from(ENDPOINTS)).scalar()
        if count:
            raise RuntimeError(f"{count} webhook endpoint(s) need {SETTING} to {needed_for}: run "
                               "`clinicrecords-admin CONFIG migrate`")
        return None
    return SecretBox.from_setting(settings.secrets.webhook_keys)


def upgrade():
    # Per-endpoint backoff (docs/decisions/0024-webhook-delivery-under-bad-receivers.md): expand only.
    op.add_column('webhook_endpoints', sa.Column('paused_until', sa.DateTime(timezone=True), nullable=True),
                  schema='control')
    op.add_column('webhook_endpoints', sa.Column('secret_sealed', sa.Text(), nullable=True), schema='control')
    op.add_column('webhook_endpoints', sa.Column('previous_secret_sealed', sa.Text(), nullable=True),
                  schema='control')
    connection = op.get_bind()
    box = _box(connection, 'seal their secrets')
    for row in connection.execute(sa.select(ENDPOINTS.c.id, ENDPOINTS.c.secret, ENDPOINTS.c.previous_secret)):
        connection.execute(ENDPOINTS.update().where(ENDPOINTS.c.id == row.id).values(
            secret_sealed=box.seal(row.secret, row.id),
            previous_secret_sealed=box.seal(row.previous_secret, row.id) if row.previous_secret else None))
    op.alter_column('webhook_endpoints', 'secret_sealed', nullable=False, schema='control')
    op.drop_column('webhook_endpoints', 'secret', schema='control')
    op.drop_column('webhook_endpoints', 'previous_secret', schema='control')


def downgrade():
    op.add_column('webhook_endpoints', sa.Column('secret', sa.String(length=100), nullable=True), schema='control')
    op.add_column('webhook_endpoints', sa.Column('previous_secret', sa.String(length=100), nullable=True),
                  schema='control')
    connection = op.get_bind()
    box = _box(connection, 'open their secrets')
    rows = connection.execute(sa.select(ENDPOINTS.c.id, ENDPOINTS.c.secret_sealed, ENDPOINTS.c.previous_secret_sealed))
    for row in rows.all():
        connection.execute(ENDPOINTS.update().where(ENDPOINTS.c.id == row.id).values(
            secret=box.open(row.secret_sealed, row.id),
            previous_secret=box.open(row.previous_secret_sealed, row.id) if row.previous_secret_sealed else None))
    op.alter_column('webhook_endpoints', 'secret', nullable=False, schema='control')
    op.drop_column('webhook_endpoints', 'previous_secret_sealed', schema='control')
    op.drop_column('webhook_endpoints', 'secret_sealed', schema='control')
    op.drop_column('webhook_endpoints', 'paused_until', schema='control')
