"""The embedded cluster's server settings the test suite needs, applied once before any test runs."""

import psycopg

from clinicrecords.db import embedded

# A test in the rolled-back transaction holds a lock on every object it creates until it ends, and building a
# clinic's schema creates about a hundred; a test that builds sixty clinics (the isolation properties, the
# examples and code samples in a fresh sandbox each) holds about as many locks as the default lock table has
# (64 per connection). The table is shared by the whole cluster, so with several worker processes two such
# tests at once ran it out ("out of shared memory"). Four times the default leaves room for every worker.
MAX_LOCKS_PER_TRANSACTION = 256


def ensure_test_settings(var_dir):
    """Start (or join) the embedded server and give it the settings above; a setting PostgreSQL reads only
    at start is applied by restarting it, which is why this runs before any worker or test connects."""
    server = embedded.server(var_dir / "pgdata")
    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        current = int(admin.execute("SHOW max_locks_per_transaction").fetchone()[0])
        if current >= MAX_LOCKS_PER_TRANSACTION:
            return
        admin.execute(f"ALTER SYSTEM SET max_locks_per_transaction = {MAX_LOCKS_PER_TRANSACTION}")
    embedded.restart(server)
