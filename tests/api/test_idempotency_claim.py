"""The one-round-trip claim of an Idempotency-Key (lock and lookup in `control.idempotency_claim`) keeps the
guarantee the two statements had: the lookup's snapshot is taken after the lock is held."""

import threading
import time
import uuid

import pytest
from sqlalchemy import text

from clinicrecords.api.idempotency import _CLAIM
from clinicrecords.db import locks

GATE = 7_220_422  # an advisory lock of this test's own, held while the first request "commits"

# The claim, or the lookup as one plain statement would do it, run after the statement has already taken its
# snapshot and then waited on the gate: the gate's lateral dependency makes it run first.
_GATED = (f"SELECT found.* FROM (SELECT '' AS suffix FROM (SELECT pg_advisory_xact_lock({GATE})) AS waited "
          "OFFSET 0) AS gate, LATERAL ")
_GATED_CLAIM = text(_GATED + "control.idempotency_claim(:owner_id, :key || gate.suffix, interval '24 hours') AS found")
_GATED_PLAIN = text(_GATED + "(SELECT true AS claimed, status FROM control.idempotency_records "
                    "WHERE owner_id = :owner_id AND key = :key || gate.suffix) AS found")


def _store(connection, owner_id, key):
    connection.execute(text("INSERT INTO control.idempotency_records (owner_id, key, fingerprint, status, headers, "
                            "body) VALUES (:owner_id, :key, '\\x00', 201, '{}', '{}')"),
                       {"owner_id": owner_id, "key": key})


def _seen_after_a_commit_while_waiting(engine, statement):
    owner_id, key = uuid.uuid4(), f"claim-{uuid.uuid4()}"
    found = {}

    def lookup():
        with engine.connect() as connection, connection.begin():
            found["row"] = connection.execute(statement, {"owner_id": owner_id, "key": key}).first()

    with engine.connect() as first:
        first.execute(text("SELECT pg_advisory_lock(:gate)"), {"gate": GATE})
        first.commit()
        thread = threading.Thread(target=lookup)
        thread.start()
        # The lookup's statement has started (its snapshot is taken) and waits on the gate. A minute, not less:
        # the thread opens a connection of its own, slow on a machine running other suites beside this one.
        deadline = time.monotonic() + 60
        while not first.execute(text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                                     "AND objid = :gate"), {"gate": GATE}).scalar():
            if time.monotonic() > deadline or not thread.is_alive():
                pytest.fail("the lookup never waited on the gate")
            time.sleep(0.05)
        first.commit()
        _store(first, owner_id, key)
        first.commit()  # a first request's answer committed after the waiting statement's snapshot was taken
        first.execute(text("SELECT pg_advisory_unlock(:gate)"), {"gate": GATE})
        first.commit()
        thread.join(30)
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM control.idempotency_records WHERE owner_id = :owner_id"),
                           {"owner_id": owner_id})
    return found.get("row")


@pytest.mark.commits  # two connections of their own, each committing, and a thread
def test_the_claim_sees_an_answer_committed_after_its_statement_began(engine):
    row = _seen_after_a_commit_while_waiting(engine, _GATED_CLAIM)
    assert row.claimed and row.status == 201


@pytest.mark.commits
def test_a_plain_single_statement_would_miss_it(engine):
    """Why the claim is a function: the same lookup as one statement reads its snapshot from before the wait."""
    assert _seen_after_a_commit_while_waiting(engine, _GATED_PLAIN) is None


@pytest.mark.commits
def test_a_key_held_by_another_transaction_is_not_claimed(engine):
    owner_id, key = uuid.uuid4(), "held"
    with engine.connect() as holder, holder.begin():
        locks.hold(holder, "idempotency", owner_id, key)
        with engine.connect() as other, other.begin():
            claim = other.execute(_CLAIM.statement, {"owner_id": owner_id, "key": key}).one()
    assert not claim.claimed and claim.status is None


@pytest.mark.commits
def test_a_free_key_without_an_answer_is_claimed_with_none(engine):
    with engine.connect() as connection, connection.begin():
        claim = connection.execute(_CLAIM.statement, {"owner_id": uuid.uuid4(), "key": "free"}).one()
    assert claim.claimed and claim.fingerprint is None and claim.status is None
