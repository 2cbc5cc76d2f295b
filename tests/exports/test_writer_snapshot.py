"""One export attempt reads one snapshot, and its transaction time is a watermark a later `_since` export can
start from without missing a row (decision 0100). These commit for real: a REPEATABLE READ snapshot and
other transactions running beside it are the point."""

import threading
import time

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from clinicrecords.db import ENGINE
from clinicrecords.db.tenancy import bind_to_clinic, schema_name
from clinicrecords.providers.services import ProviderService
from tests.exports.writing import export, lines_of, seeded_sandbox

pytestmark = pytest.mark.commits  # reason: a snapshot held while other connections commit beside it


def practitioner_ids(directory, written):
    return {resource["id"] for file in written.output if file.permission == "providers:read"
            for resource in lines_of(directory, file)}


def changed_since(engine, clinic_id, moment):
    with clinic_session(engine, clinic_id) as session:
        return {str(found) for found in session.scalars(text("SELECT id FROM providers WHERE updated_at >= :moment"),
                                                         {"moment": moment})}


def clinic_session(engine, clinic_id):
    session = Session(bind=engine, expire_on_commit=False)
    bind_to_clinic(session, clinic_id)
    return session


def test_a_row_of_a_transaction_open_at_the_snapshot_is_in_the_next_since_export(
        world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    engine = registry[ENGINE]
    with clinic_session(engine, clinic_id) as late:
        # Its updated_at is its transaction's start, before the export's snapshot; it commits after it.
        provider = ProviderService(late).add("Late", "Writer", "nurse")
        first = export(registry, clinic_id, tmp_path / "first")
        assert str(provider.id) not in practitioner_ids(tmp_path / "first", first)
        late.commit()
        assert first.transaction_time <= provider.updated_at
    second = export(registry, clinic_id, tmp_path / "second", since=first.transaction_time)
    assert str(provider.id) in practitioner_ids(tmp_path / "second", second)


def _wait_for_a_waiting_lock(engine, relation, seconds=30):
    deadline = time.monotonic() + seconds
    with engine.connect() as connection:
        while time.monotonic() < deadline:
            waiting = connection.execute(select(func.count()).select_from(text("pg_locks")).where(
                text("NOT granted AND relation = CAST(:relation AS regclass)")), {"relation": relation}).scalar()
            connection.rollback()
            if waiting:
                return
            time.sleep(0.05)
    raise AssertionError(f"the export never waited on {relation}")


def test_every_type_is_read_from_the_snapshot_the_first_took(world, registry, tmp_path):
    """The export is held on the allergies (read second) while a clinician is committed: the Practitioners, read
    later, are those of the snapshot the patients were read from; the next `_since` export has the clinician."""
    clinic_id, _, _ = seeded_sandbox(world)
    engine = registry[ENGINE]
    relation = f"{schema_name(clinic_id)}.allergies"
    outcome = {}
    with engine.connect() as holder:
        holder.execute(text(f"LOCK TABLE {relation} IN ACCESS EXCLUSIVE MODE"))

        def run():
            try:
                outcome["written"] = export(registry, clinic_id, tmp_path / "first")
            except BaseException as error:  # handed to the test's thread
                outcome["error"] = error

        worker = threading.Thread(target=run)
        worker.start()
        try:
            _wait_for_a_waiting_lock(engine, relation)
            assert sorted(path.name for path in (tmp_path / "first").iterdir()) == ["Patient-1.ndjson",
                                                                                    "Patient-1.ndjson.lines"]
            with clinic_session(engine, clinic_id) as during:
                provider = ProviderService(during).add("During", "Export", "nurse")
                during.commit()
        finally:
            holder.rollback()
            worker.join(60)
    assert "error" not in outcome, outcome.get("error")
    first = outcome["written"]
    assert str(provider.id) not in practitioner_ids(tmp_path / "first", first)
    assert len(practitioner_ids(tmp_path / "first", first)) > 0
    second = export(registry, clinic_id, tmp_path / "second", since=first.transaction_time)
    exported = practitioner_ids(tmp_path / "second", second)
    assert str(provider.id) in exported
    # Exactly the clinicians changed at or after the watermark: the new one, and any the watermark repeats (it is
    # the start of the oldest transaction open in the database, which another session of the app can hold from
    # before the sandbox was seeded; docs/decisions/0100-bulk-export-snapshot-transaction-time.md).
    assert exported == changed_since(engine, clinic_id, first.transaction_time)
