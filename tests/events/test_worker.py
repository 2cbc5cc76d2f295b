"""A real Huey consumer process killed in the middle of a delivery: nothing is lost. A second consumer
takes over once the dead one's claim has run out and the sweep has queued the delivery again."""

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
from tests.events.support import emit_events


@pytest.fixture
def queue_on_disk(settings, tmp_path):
    """This process and the consumers share a SQLite queue under tmp_path (the suite's own is in memory)."""
    overrides = {"huey.backend": "sqlite", "huey.immediate": "false", "clinicrecords.var": str(tmp_path),
                 "huey.sqlite_path": str(tmp_path / "huey.db")}
    tasks.configure({**settings, **overrides})
    try:
        yield tmp_path
    finally:
        tasks.configure(settings)


def _consumer(ini, env):
    return subprocess.Popen(
        [sys.executable, "-c", "from clinicrecords.tasks.worker import main; main()", str(ini), "--workers", "2"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _queued(delivery_id):
    """Tasks queued for this delivery. The queue also carries other work: a starting worker re-queues
    interrupted imports, and its sweep re-queues other tests' due deliveries."""
    return sum(1 for task in tasks.huey.pending() if task.name == "deliver" and task.args == (str(delivery_id),))


def _wait_for(predicate, timeout=45):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _row(engine, endpoint_id):
    with engine.connect() as connection:
        return connection.execute(select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)).one()


def test_a_worker_killed_mid_delivery_loses_nothing(world, engine, make_receiver, queue_on_disk):
    ini = queue_on_disk / "worker.ini"
    ini.write_text(Path(TESTING_INI).read_text().replace("%(here)s", str(ROOT))
                   .replace("huey.backend = memory", "huey.backend = sqlite")
                   .replace("huey.immediate = true", "huey.immediate = false")
                   .replace("webhooks.timeout_seconds = 2", "webhooks.timeout_seconds = 30\nwebhooks.claim_seconds = 2"))
    env = dict(os.environ, CLINICRECORDS_VAR=str(queue_on_disk),
               DATABASE_URL=engine.url.render_as_string(hide_password=False))

    receiver = make_receiver(answers=[None], default=200)  # the first request hangs until released
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    [event] = emit_events(world, clinic_id)
    delivery_id = _row(engine, endpoint_id).id
    assert _queued(delivery_id) == 1

    first = _consumer(ini, env)
    try:
        assert receiver.arrived.wait(45), "the first consumer started the delivery"
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    receiver.release.set()
    killed = _row(engine, endpoint_id)
    assert (killed.status, killed.attempts) == ("pending", 0) and killed.locked_until is not None
    assert _queued(delivery_id) == 0, "the consumer had taken the task: only the database remembers"

    second = _consumer(ini, env)
    try:
        time.sleep(2.5)  # the dead consumer's claim (webhooks.claim_seconds = 2) runs out
        sweep_deliveries()  # the periodic sweep, queued for the consumer like the scheduler would
        assert _wait_for(lambda: _row(engine, endpoint_id).status == "delivered")
    finally:
        os.killpg(second.pid, signal.SIGTERM)
        second.wait(20)
    assert len(receiver.requests) == 2
    for _, headers, body in receiver.requests:
        assert headers["webhook-id"] == str(event.id)
        assert Webhook(secret).verify(body, headers)["id"] == str(event.id)
    assert _row(engine, endpoint_id).attempts == 1
