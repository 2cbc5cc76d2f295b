"""Seven days: older rows are never shown, and the periodic prune deletes them in batches."""

import datetime
import time
import uuid

from sqlalchemy import func, select

from clinicrecords.request_log.models import RequestLogEntry
from clinicrecords.request_log.services import RequestLog, prune
from clinicrecords.request_log.tasks import prune_request_log
from tests.request_log.test_writer import entry

DAY = 86400


def _count(engine, owner_id):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).where(RequestLogEntry.owner_id == owner_id))


def test_rows_past_seven_days_are_hidden_then_pruned_in_batches(writer, world, engine):
    owner = uuid.uuid4()
    now = time.time()
    for age in (8 * DAY, 7 * DAY + 60, 7 * DAY - 60, 60):
        writer.append(entry(owner, f"req_age_{age}", started_at=now - age))
    assert writer.flush(timeout=10)
    with world.db() as db:
        shown = [r.request_id for r in RequestLog(db).search(owner).rows]
    assert shown == [f"req_age_{60}", f"req_age_{7 * DAY - 60}"]

    removed = prune(engine, batch=1)
    assert removed >= 2
    assert _count(engine, owner) == 2
    with world.db() as db:
        assert [r.request_id for r in RequestLog(db).search(owner).rows] == shown


def test_prune_at_a_later_time_removes_what_aged_since(writer, engine):
    owner = uuid.uuid4()
    started = time.time() - DAY
    writer.append(entry(owner, started_at=started))
    assert writer.flush(timeout=10)
    prune(engine)
    assert _count(engine, owner) == 1
    # A second past its seven days (and so past nothing younger: other tests' rows stay).
    prune(engine, now=datetime.datetime.fromtimestamp(started + 7 * DAY + 1, datetime.UTC))
    assert _count(engine, owner) == 0


def test_the_periodic_task_prunes(writer, engine):
    owner = uuid.uuid4()
    writer.append(entry(owner, started_at=time.time() - 9 * DAY))
    assert writer.flush(timeout=10)
    prune_request_log.call_local()
    assert _count(engine, owner) == 0
