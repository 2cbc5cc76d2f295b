"""A real Huey consumer (file-backed queue) killed with SIGKILL in the middle of a stream of webhook
deliveries to two endpoints, then a new consumer: every event reaches every endpoint, each delivery row is
recorded delivered once, and a receiver deduplicating by `webhook-id` counts each event exactly once (the
only repeats are the deliveries that were in flight at the kill, sent again with the same id).

The import half of this fault (a consumer killed mid-import, no patient written twice) is
tests/patient_imports/test_worker_crash.py; a single delivery killed in flight is tests/events/test_worker.py."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from clinicrecords import tasks
from clinicrecords.events.models import WebhookDelivery
from clinicrecords.events.tasks import sweep_deliveries
from tests.conftest import ROOT, TESTING_INI
from tests.events.support import Receiver, emit_events

EVENTS = 10
WORKERS = 2


@pytest.fixture
def queue_on_disk(settings, tmp_path):
    overrides = {"huey.backend": "sqlite", "huey.immediate": "false", "clinicrecords.var": str(tmp_path),
                 "huey.sqlite_path": str(tmp_path / "huey.db")}
    tasks.configure({**settings, **overrides})
    try:
        yield tmp_path
    finally:
        tasks.configure(settings)


def _consumer(ini, env):
    return subprocess.Popen(
        [sys.executable, "-c", "from clinicrecords.tasks.worker import main; main()", str(ini),
         "--workers", str(WORKERS)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _stop(process, sig):
    if process.poll() is None:
        os.killpg(process.pid, sig)
        process.wait(20)


def _statuses(engine, endpoint_ids):
    with engine.connect() as connection:
        return connection.execute(select(WebhookDelivery.status, WebhookDelivery.attempts)
                                  .where(WebhookDelivery.endpoint_id.in_(endpoint_ids))).all()


def _wait_for(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_a_consumer_killed_mid_stream_delivers_every_event_once_per_endpoint(world, engine, queue_on_disk):
    ini = queue_on_disk / "worker.ini"
    ini.write_text(Path(TESTING_INI).read_text().replace("%(here)s", str(ROOT))
                   .replace("huey.backend = memory", "huey.backend = sqlite")
                   .replace("huey.immediate = true", "huey.immediate = false")
                   .replace("webhooks.timeout_seconds = 2", "webhooks.timeout_seconds = 10\nwebhooks.claim_seconds = 2"))
    env = dict(os.environ, CLINICRECORDS_VAR=str(queue_on_disk),
               DATABASE_URL=engine.url.render_as_string(hide_password=False))
    with Receiver(delay=0.4) as first, Receiver(delay=0.4) as second:
        clinic_id = world.clinic()
        endpoints = [world.webhook(clinic_id=clinic_id, url=receiver.url) for receiver in (first, second)]
        events = emit_events(world, clinic_id, EVENTS)
        endpoint_ids = [endpoint_id for endpoint_id, _ in endpoints]

        killed = _consumer(ini, env)
        try:
            assert _wait_for(lambda: len(first.requests) + len(second.requests) >= 4, 45), "the consumer started"
        finally:
            _stop(killed, signal.SIGKILL)
        after_kill = _statuses(engine, endpoint_ids)
        assert {status for status, _ in after_kill} == {"delivered", "pending"}, "killed in the middle"

        restarted = _consumer(ini, env)
        try:
            time.sleep(2.5)  # the killed consumer's claims (webhooks.claim_seconds = 2) run out
            sweep_deliveries()  # the periodic sweep: queues what the dead consumer had taken
            assert _wait_for(lambda: {s for s, _ in _statuses(engine, endpoint_ids)} == {"delivered"}, 60)
        finally:
            _stop(restarted, signal.SIGTERM)

        ids = sorted(str(event.id) for event in events)
        repeats = 0
        for receiver, (_, secret) in zip((first, second), endpoints):
            seen = [headers["webhook-id"] for _, headers, _ in receiver.requests]
            assert sorted(set(seen)) == ids, "every event reached every endpoint"
            for _, headers, body in receiver.requests:
                assert Webhook(secret).verify(body, headers)["id"] == headers["webhook-id"]
            repeats += len(seen) - len(set(seen))
        assert repeats <= WORKERS, "only the deliveries in flight at the kill are sent again"
        assert len(_statuses(engine, endpoint_ids)) == 2 * EVENTS, "one delivery row per event and endpoint"
