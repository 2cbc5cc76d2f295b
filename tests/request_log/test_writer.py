"""The writer off the request path: a full buffer drops and counts without blocking, the thread writes by
itself, a failed write is counted and logged, and a forked child never writes its parent's entries."""

import os
import time
import uuid

import pytest
from sqlalchemy import select, text

from clinicrecords.api.request_log import KeyedRequest
from clinicrecords.db import make_engine
from clinicrecords.settings import read
from clinicrecords.request_log.models import RequestLogEntry
from clinicrecords.request_log.paths import route_words
from clinicrecords.request_log.writer import RequestLogWriter


def entry(owner_id, request_id=None, started_at=None, path="/v1/me"):
    return KeyedRequest(started_at or time.time(), owner_id, "0123456789abcdef", "test", None, "GET", path,
                        200, None, request_id or f"req_{uuid.uuid4().hex[:24]}", 1.5)


@pytest.fixture
def make_writer(settings, registry):
    made = []

    def make(**options):
        made.append(RequestLogWriter(lambda: make_engine(read(settings), pool_size=1, max_overflow=0),
                                     lambda: route_words(registry), **options))
        return made[-1]

    yield make
    for writer in made:
        writer.close()


@pytest.fixture
def stored(engine):
    def request_ids(owner_id):
        with engine.connect() as connection:
            return connection.scalars(select(RequestLogEntry.request_id)
                                      .where(RequestLogEntry.owner_id == owner_id)
                                      .order_by(RequestLogEntry.id)).all()
    return request_ids


def test_a_full_buffer_drops_and_counts(make_writer, stored):
    writer = make_writer(capacity=3, interval=3600)
    owner = uuid.uuid4()
    entries = [entry(owner) for _ in range(5)]
    for e in entries:
        writer.append(e)
    assert writer.dropped == 2
    assert writer.flush(timeout=10)
    assert stored(owner) == [e.request_id for e in entries[:3]]
    assert (writer.written, writer.lost) == (3, 0)


def test_appending_never_waits_for_a_slow_write(make_writer, stored):
    writer = make_writer(capacity=100, batch=10, interval=0.01)
    owner = uuid.uuid4()
    with writer._write_lock:  # what a database that stopped answering looks like to the thread
        started = time.perf_counter()
        for _ in range(1_000):
            writer.append(entry(owner))
        elapsed = time.perf_counter() - started
        assert writer.flush(timeout=0.05) is False
    assert elapsed < 0.5, elapsed
    assert writer.dropped == 900
    assert writer.flush(timeout=10)
    assert len(stored(owner)) == 100


def test_the_thread_writes_by_itself_in_batches(make_writer, stored):
    writer = make_writer(batch=2, interval=0.05)
    owner = uuid.uuid4()
    entries = [entry(owner) for _ in range(5)]
    for e in entries:
        writer.append(e)
    deadline = time.monotonic() + 10
    while len(stored(owner)) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored(owner) == [e.request_id for e in entries]
    assert writer._thread.is_alive()


def test_entries_appended_during_a_write_wait_for_the_next_one(make_writer, stored):
    """Under load requests keep arriving while a batch is on the wire; writing them at once would spend a
    write's round trips on every few requests instead of once per interval."""
    writer = make_writer(interval=3600)
    owner = uuid.uuid4()
    first, arriving = entry(owner), entry(owner)
    write = writer._write

    def write_while_a_request_is_answered(entries):
        if entries == [first]:
            writer.append(arriving)
        write(entries)

    writer._write = write_while_a_request_is_answered
    writer.append(first)
    assert writer.flush(timeout=10)
    assert stored(owner) == [first.request_id]
    writer._write = write
    assert writer.flush(timeout=10)
    assert stored(owner) == [first.request_id, arriving.request_id]


def test_a_failed_write_loses_its_batch_and_says_so(settings, registry, make_writer, caplog):
    writer = RequestLogWriter(lambda: make_engine(read({**settings, "database.name": "no_such_database"})),
                              lambda: route_words(registry), interval=3600)
    writer.append(entry(uuid.uuid4()))
    writer.append(entry(uuid.uuid4()))
    assert writer.flush(timeout=30)
    assert (writer.written, writer.lost) == (0, 2)
    assert "2 entries lost" in caplog.text


def test_after_its_connection_is_cut_the_next_batch_reconnects(settings, registry, engine, stored, caplog):
    name = f"reqlog-test-{uuid.uuid4().hex[:8]}"
    writer = RequestLogWriter(
        lambda: make_engine(read({**settings, "database.application_name": name}), pool_size=1),
        lambda: route_words(registry), interval=3600)
    owner = uuid.uuid4()
    try:
        writer.append(entry(owner, "req_before"))
        assert writer.flush(timeout=10)
        with engine.connect() as connection:
            assert connection.scalar(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                          "WHERE application_name = :name"), {"name": name}) == 1
        writer.append(entry(owner, "req_cut"))
        assert writer.flush(timeout=10)
        writer.append(entry(owner, "req_after"))
        assert writer.flush(timeout=10)
    finally:
        writer.close()
    assert (writer.written, writer.lost) == (2, 1)
    assert stored(owner) == ["req_before", "req_after"]


def test_a_forked_child_writes_its_own_entries_only(make_writer, stored):
    writer = make_writer(interval=3600)
    owner = uuid.uuid4()
    parents = entry(owner, "req_parent")
    writer.append(parents)
    pid = os.fork()
    if pid == 0:  # the child: its buffer starts empty, its thread and connection are its own
        try:
            writer.append(entry(owner, "req_child"))
            ok = writer.flush(timeout=10) and writer.written == 1 and writer._thread.is_alive()
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert writer.flush(timeout=10)
    assert sorted(stored(owner)) == ["req_child", "req_parent"]


def test_the_path_keeps_route_words_and_ids_only(make_writer, engine):
    writer = make_writer(interval=3600)
    owner, record = uuid.uuid4(), uuid.uuid4()
    path = f"/v1/clinics/{str(record).upper()}/allergies/ehr_live_abc_def/Jane%20Doe"
    writer.append(entry(owner, path=path))
    writer.append(entry(owner, path="/v1/" + "patients/" * 100))
    writer.flush(timeout=10)
    with engine.connect() as connection:
        paths = connection.scalars(select(RequestLogEntry.path).where(RequestLogEntry.owner_id == owner)
                                   .order_by(RequestLogEntry.id)).all()
    assert paths[0] == f"/v1/clinics/{record}/allergies/{{redacted}}/{{redacted}}"
    assert len(paths[1]) == 500 and paths[1].endswith("…")

