"""idempotency claim: the advisory lock on an Idempotency-Key and the lookup of its stored answer in one call

Revision ID: c23_idempotency_claim
Revises: c22_reach_version

Expand only: a new function (clinicrecords/api/idempotency.py calls it; the lock name is the one the previous
code took, so processes on either version exclude each other during a rollout).
"""

from alembic import op

revision = 'c23_idempotency_claim'
down_revision = 'c22_reach_version'
branch_labels = None
depends_on = None

# VOLATILE plpgsql: each statement inside takes a snapshot of its own, so the lookup's snapshot is taken after
# the lock is held (a first request that committed in between is seen), in one round trip from the client.
# Always one row: claimed false when another transaction holds the key; else the stored answer within
# retention, or NULLs.
IDEMPOTENCY_CLAIM = """
CREATE FUNCTION control.idempotency_claim(claim_owner uuid, claim_key text, retention interval)
RETURNS TABLE (claimed boolean, fingerprint bytea, status smallint, headers jsonb, body bytea)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended('idempotency:' || claim_owner || ':' || claim_key, 0)) THEN
        RETURN QUERY SELECT false, NULL::bytea, NULL::smallint, NULL::jsonb, NULL::bytea;
        RETURN;
    END IF;
    RETURN QUERY
        SELECT true, stored.fingerprint, stored.status, stored.headers, stored.body
        FROM (SELECT 1) AS one
        LEFT JOIN control.idempotency_records AS stored
            ON stored.owner_id = claim_owner AND stored.key = claim_key AND stored.created_at > now() - retention;
END
$$
"""


def upgrade():
    op.execute(IDEMPOTENCY_CLAIM)


def downgrade():
    op.execute("DROP FUNCTION control.idempotency_claim(uuid, text, interval)")
