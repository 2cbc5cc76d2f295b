"""A primary whose synchronous standbys are all gone (or a promoted one they have not found yet): PostgreSQL holds
every COMMIT until one confirms it, and `statement_timeout` does not end that wait. A request must not hang on it
past `database.commit_wait_ms`: it answers 503 problem+json, the write stays on the primary only, and its retry
with the same Idempotency-Key replays the stored answer once a standby (or the operator) lets commits through.

Debian's PostgreSQL 15 as a one-node cluster (tests/common/postgres_cluster.py) whose
`synchronous_standby_names` names a standby that never comes; the key's counter in Redis (the request's COMMIT
waits) or in PostgreSQL (its autocommit write, before the transaction, waits)."""

import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import text
from webtest import TestApp

from clinicrecords.clinics.services import CLINIC_SCHEMAS
from clinicrecords.db import embedded, migrations
from clinicrecords.db.tenancy import schema_name
from clinicrecords.settings import app_settings
from tests.common.postgres_cluster import Cluster
from tests.common.world import World

DATABASE = "clinicrecords_sync_standby"
WAIT_MS = 1500


@pytest.fixture(scope="module")
def lonely_primary():
    """A primary alone, commits not waiting yet (set-up and migrations must commit)."""
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="clinicrecords-sync-")) / "postgres", names=("pg_a", "pg_gone"))
    cluster.folder.parent.chmod(0o755)  # the servers run as Debian's postgres user
    try:
        cluster.create(standbys=False)
        primary = cluster.nodes[0]
        _wait_for_standby(primary, False)
        embedded.prepare_database(lambda name=None: primary.conninfo(name or "postgres"), DATABASE)
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(cluster.folder.parent, ignore_errors=True)


def _wait_for_standby(primary, wait):
    """Commits on `primary` wait for the standby that never comes (`wait`), or do not."""
    names = "ANY 1 (pg_gone)" if wait else ""
    primary.sql(f"ALTER SYSTEM SET synchronous_standby_names = '{names}'")
    primary.sql("SELECT pg_reload_conf()")
    deadline = time.monotonic() + 10
    while primary.sql("SHOW synchronous_standby_names")[0] != names and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture(params=["redis", "postgres"])
def served(request, lonely_primary, make_app):
    overrides = {"database_url": lonely_primary.url(DATABASE, embedded.APP_ROLE),
                 "database.commit_wait_ms": str(WAIT_MS), "ratelimit.backend": request.param}
    if request.param == "redis":
        overrides["ratelimit.redis_url"] = request.getfixturevalue("redis_url")
    wsgi_app = make_app(**overrides)
    migrations.migrate_all(wsgi_app.registry["db.engine"], CLINIC_SCHEMAS, workers=1,
                           settings=app_settings(wsgi_app.registry))
    world = World(wsgi_app.registry)
    clinic_id = world.clinic()
    headers = {"Authorization": f"Bearer {world.key(clinic_id=clinic_id)}"}
    app = TestApp(wsgi_app)
    # The key's first use (its last-use write) and the key cache, while commits still go through.
    assert app.get(f"/v1/clinics/{clinic_id}/patients", headers=headers).status_int == 200
    yield app, clinic_id, headers, wsgi_app.registry["db.engine"], request.param
    _wait_for_standby(lonely_primary.nodes[0], False)


def _in_time(send, seconds):
    answers = []
    thread = threading.Thread(target=lambda: answers.append(send()), daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(seconds)
    return (answers[0] if answers else None), time.monotonic() - started


def test_a_write_no_standby_confirms_answers_503_in_time_and_its_retry_replays(lonely_primary, served):
    app, clinic_id, headers, engine, counter = served
    key = str(uuid.uuid4())
    body = {"given_name": "Alone", "family_name": key, "birth_date": "1970-01-01"}

    def create():
        return app.post_json(f"/v1/clinics/{clinic_id}/patients", body, status="*",
                             headers={**headers, "Idempotency-Key": key})

    _wait_for_standby(lonely_primary.nodes[0], True)
    refused, took = _in_time(create, 20)
    assert refused is not None, "the request still waits for a standby"
    assert refused.status_int == 503 and refused.content_type == "application/problem+json", refused.text
    assert refused.json["code"] == "service_unavailable" and refused.headers["Retry-After"]
    assert took < WAIT_MS / 1000 + 5

    _wait_for_standby(lonely_primary.nodes[0], False)  # a standby back, or the operator's step
    retried = create()
    assert retried.status_int == 201, retried.text
    # The request's COMMIT was cancelled after it had committed on the primary: the retry replays its answer.
    # A counter write held before the transaction began left nothing: the retry is the first run.
    assert retried.headers.get("Idempotent-Replayed") == ("true" if counter == "redis" else None)
    with engine.connect() as connection:
        count = connection.scalar(text(f'SELECT count(*) FROM "{schema_name(clinic_id)}".patients '
                                       "WHERE family_name = :key"),
                                  {"key": key})
    assert count == 1
