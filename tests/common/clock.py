"""The database clock inside the tests' rolled-back transaction.

PostgreSQL's now() is the start of the (top-level) transaction, so inside one outer transaction it would stand
still for a whole test or module: rows written by two requests would carry the same timestamp, orderings by
time would fall back on random ids, and a time compared with the test's own clock would lag. In the suite's
own database, now() is redefined to answer the start of the innermost joined transaction instead
(`clinicrecords.db.joined` records it at each savepoint it opens), which is what it answered when every
request committed for real. Table defaults keep calling now() by its identity, so they follow too.
"""

import psycopg

from clinicrecords.db import embedded
from clinicrecords.db.joined import CLOCK_SETTING
from clinicrecords.settings import read, var_dir

_NOW = f"""
CREATE OR REPLACE FUNCTION pg_catalog.now() RETURNS timestamp with time zone
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(nullif(current_setting('{CLOCK_SETTING}', true), '')::timestamptz,
                    pg_catalog.transaction_timestamp())
$$
"""


def install_moving_clock(settings):
    """Needs the embedded server's superuser; a suite on an outside DATABASE_URL keeps PostgreSQL's now()."""
    url = embedded.superuser_url(var_dir(read(settings)), settings["database.name"])
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(_NOW)
