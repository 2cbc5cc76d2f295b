"""Gauges read when Prometheus scrapes: the task queue's, and those the contexts register with
`add_metric_source` (webhook deliveries, the mail outbox, export jobs).

A source is `source(connection)` → an iterable of `Reading(name, documentation, value)`: one query of its
own tables on the scraping request's connection, cheap (an indexed count, a min). Read on scrape rather than
stored by a periodic task so a scrape always sees the rows as they are (docs/decisions/0150-metrics-read-on-
scrape.md).
"""

import sqlite3
import time
from typing import NamedTuple

from huey.storage import MemoryStorage, RedisStorage, SqliteStorage
from prometheus_client.core import GaugeMetricFamily
from redis.exceptions import RedisError
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from clinicrecords.tasks import QUEUED_AT, huey

METRIC_SOURCES = "observability.metric_sources"


class Reading(NamedTuple):
    name: str
    documentation: str
    value: float


def add_metric_source(config, source):
    """`source(connection)` → `Reading`s, called on every scrape of GET /metrics."""
    config.registry.setdefault(METRIC_SOURCES, []).append(source)


def metric_sources(registry):
    return tuple(registry.get(METRIC_SOURCES, ()))


_ARCHIVER = text("SELECT archived_count, failed_count, coalesce(extract(epoch FROM last_archived_time), 0), "
                 "coalesce(extract(epoch FROM last_failed_time), 0) FROM pg_stat_archiver")


def archiver_readings(connection):
    """PostgreSQL's WAL archiving (`pg_stat_archiver`) as the service's own gauges, so the alert on it needs no
    postgres_exporter. `pg_stat_archiver` is readable by any role; on a standby or with archiving off the
    counts stay 0."""
    archived, failed, last_archived, last_failed = connection.execute(_ARCHIVER).one()
    return [("clinicrecords_postgres_wal_archived", "WAL segments archived since the statistics were reset",
             archived),
            ("clinicrecords_postgres_wal_archive_failures", "Failed WAL archive attempts since the statistics "
             "were reset", failed),
            ("clinicrecords_postgres_wal_last_archived_timestamp_seconds",
             "When the last WAL segment was archived (Unix time; 0: never)", float(last_archived)),
            ("clinicrecords_postgres_wal_last_archive_failure_timestamp_seconds",
             "When archiving last failed (Unix time; 0: never)", float(last_failed))]


def _oldest_message(storage):
    """The serialized message the consumer takes next, or None (an empty queue, a storage not known here)."""
    if isinstance(storage, RedisStorage):
        return storage.conn.lindex(storage.queue_key, -1)  # LPUSH in, RPOP out
    if isinstance(storage, SqliteStorage):
        rows = storage.sql("select data from task where queue = ? order by priority desc, id limit 1",
                           (storage.name,), results=True)
        return rows[0][0] if rows else None
    if isinstance(storage, MemoryStorage):
        queued = list(storage._queue)
        return min(queued)[2] if queued else None
    return None


def queue_readings(queue=huey, now=None):
    depth = queue.storage.queue_size()
    age = 0.0
    data = _oldest_message(queue.storage) if depth else None
    if data is not None:
        kwargs = queue.serializer.deserialize(data).kwargs or {}
        queued_at = kwargs.get(QUEUED_AT)
        if queued_at is not None:
            age = max(0.0, (now or time.time()) - queued_at)
    return [Reading("clinicrecords_queue_tasks", "Tasks waiting in the queue", depth),
            Reading("clinicrecords_queue_oldest_task_age_seconds",
                    "How long the task the consumer takes next has waited (0: none waits)", age)]


class ScrapeCollector:
    """prometheus_client's collector of the readings above, for one scrape."""

    def __init__(self, engine, sources):
        self.engine = engine
        self.sources = sources

    def collect(self):
        # A store that does not answer costs its own readings, never the scrape: the counters still reach
        # Prometheus, and `..._up 0` says which readings are missing.
        readings = []
        try:
            readings += queue_readings()
            queue_up = 1
        except (RedisError, sqlite3.Error, OSError):
            queue_up = 0
        try:
            with self.engine.connect() as connection:
                for source in self.sources:
                    readings += source(connection)
            database_up = 1
        except DBAPIError:
            database_up = 0
        readings += [("clinicrecords_scrape_queue_up", "1 when this scrape read the queue's storage", queue_up),
                     ("clinicrecords_scrape_database_up", "1 when this scrape read the database's gauges",
                      database_up)]
        for name, documentation, value in readings:
            family = GaugeMetricFamily(name, documentation)
            family.add_metric([], value)
            yield family
