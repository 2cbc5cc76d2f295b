"""The request log's writer: a bounded in-process buffer, drained by a background thread in batches.

The request's thread only appends a tuple (`append`): no lock, no I/O. A daemon thread wakes every
`interval` seconds, or as soon as `batch` entries wait, and writes what is there with one COPY per batch on a
connection of its own. A full buffer drops the entry and counts it (`dropped`) instead of blocking; a
failed write loses its batch (`lost`) and logs it. Entries still buffered when the process dies are lost:
the log is a convenience for developers, not a record the spec requires (the audit trail is).

Processes: the thread starts on the first append in each process; a forked child (Huey's process workers, a
reloader's worker) starts with an empty buffer and its own thread and connection.
"""

import atexit
import collections
import datetime
import functools
import logging
import os
import threading
import time
import weakref

from clinicrecords.request_log.paths import kept_path

log = logging.getLogger(__name__)

COPY = ("COPY control.request_log (occurred_at, owner_id, key_id, key_mode, clinic_id, method, path, status,"
        " code, request_id, latency_ms) FROM STDIN")
# A connection idle this long is closed; the next batch opens another.
IDLE_CLOSE_SECONDS = 30
# Engines a forked child inherited: kept, never used nor closed, so it never ends the parent's sessions.
_inherited = []


class RequestLogWriter:
    def __init__(self, make_engine, route_words, capacity=10_000, batch=1_000, interval=0.5):
        """`make_engine()` builds this process's engine (one connection); `route_words()` the words
        a path keeps."""
        self._make_engine = make_engine
        self._route_words = route_words
        self.capacity, self.batch, self.interval = capacity, batch, interval
        self._clean_path = None
        self._start_process()
        owner = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: (writer := owner()) and writer._after_fork())
        atexit.register(lambda: (writer := owner()) and writer.close())

    def _start_process(self):
        self._buffer = collections.deque()
        self._wake = threading.Event()
        self._write_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._thread = None
        self._engine = None
        self._stopping = False
        self._last_write = time.monotonic()
        self.dropped = self.lost = self.written = self._reported_drops = 0

    def _after_fork(self):
        if self._engine is not None:
            _inherited.append(self._engine)
        self._start_process()

    def append(self, entry):
        """On the request's thread: never waits, never raises for a full buffer."""
        buffer = self._buffer
        if len(buffer) >= self.capacity:
            with self._count_lock:
                self.dropped += 1
            return
        buffer.append(entry)
        if self._thread is None:
            self._start_thread()
        if len(buffer) >= self.batch:
            self._wake.set()

    def _start_thread(self):
        with self._count_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="request-log-writer", daemon=True)
                self._thread.start()

    def _run(self):
        while not self._stopping:
            self._wake.wait(self.interval)
            self._wake.clear()
            with self._write_lock:
                self._drain()
                self._close_when_idle()

    def flush(self, timeout=None):
        """Write every entry appended so far before returning (tests, shutdown). False when the background
        thread held the writer past `timeout` seconds."""
        if not self._write_lock.acquire(timeout=-1 if timeout is None else timeout):
            return False
        try:
            self._drain()
        finally:
            self._write_lock.release()
        return True

    def close(self, timeout=5):
        self._stopping = True
        self._wake.set()
        if self._buffer:
            self.flush(timeout)
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def _drain(self):
        """Write what the buffer holds now, in batches. Entries appended meanwhile wait for the next wake: under
        load, draining until the buffer is empty would write a batch of a few entries per write's round trips."""
        buffer = self._buffer
        owed = len(buffer)
        while owed:
            entries = [buffer.popleft() for _ in range(min(owed, self.batch))]
            owed -= len(entries)
            self._write(entries)

    def _write(self, entries):
        try:
            if self._clean_path is None:
                # Clients repeat their paths (polling, retries): a path is cleaned once while it is in use.
                self._clean_path = functools.lru_cache(maxsize=4096)(
                    functools.partial(kept_path, words=self._route_words()))
            rows = [_row(entry, self._clean_path) for entry in entries]
            if self._engine is None:
                self._engine = self._make_engine()
            connection = self._engine.raw_connection()
            try:
                with connection.cursor() as cursor:
                    # A lost entry on a crash is acceptable: the commit need not wait for the WAL flush,
                    # which the requests' own commits would otherwise queue behind.
                    cursor.execute("SET LOCAL synchronous_commit TO OFF")
                    with cursor.copy(COPY) as copy:
                        for row in rows:
                            copy.write_row(row)
                connection.commit()
            finally:
                connection.close()
        except Exception:
            self.lost += len(entries)
            log.exception("request log: %d entries lost", len(entries))
            if self._engine is not None:  # the next batch starts on a new connection (a restarted database)
                self._engine.dispose()
                self._engine = None
            return
        self.written += len(entries)
        self._last_write = time.monotonic()
        if self.dropped != self._reported_drops:
            self._reported_drops = self.dropped
            log.warning("request log: %d entries dropped so far in this process (buffer full)", self.dropped)

    def _close_when_idle(self):
        if self._engine is not None and time.monotonic() - self._last_write > IDLE_CLOSE_SECONDS:
            self._engine.dispose()
            self._engine = None


def _row(entry, clean_path):
    return (datetime.datetime.fromtimestamp(entry.started_at, datetime.UTC), entry.owner_id, entry.key_id,
            entry.key_mode, entry.clinic_id, entry.method[:10], clean_path(entry.path), entry.status,
            entry.code, entry.request_id, entry.latency_ms)
