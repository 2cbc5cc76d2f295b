"""A real Huey consumer process killed in the middle of a delivery: nothing is lost. A second consumer
takes over once the dead one's claim has run out and the sweep has queued the delivery again."""

import signal
import time

from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from clinicrecords import tasks
from clinicrecords.events.models import WebhookDelivery
from clinicrecords.events.tasks import sweep_deliveries
from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for
from tests.events.support import emit_events


def _queued(delivery_id):
    """Tasks queued for this delivery. The queue also carries other work: a starting worker re-queues
    interrupted imports, and its sweep re-queues other tests' due deliveries."""
    return sum(1 for task in tasks.huey.pending() if task.name == "deliver" and task.args == (str(delivery_id),))


def _row(engine, endpoint_id):
    with engine.connect() as connection:
        return connection.execute(select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)).one()


def test_a_worker_killed_mid_delivery_loses_nothing(world, engine, make_receiver, queue_on_disk):
    ini, env = consumer_config(queue_on_disk, engine, "webhooks.timeout_seconds = 30\nwebhooks.claim_seconds = 2")

    receiver = make_receiver(answers=[None], default=200)  # the first request hangs until released
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    [event] = emit_events(world, clinic_id)
    delivery_id = _row(engine, endpoint_id).id
    assert _queued(delivery_id) == 1

    first = start_consumer(ini, env)
    try:
        assert receiver.arrived.wait(45), "the first consumer started the delivery"
    finally:
        stop_consumer(first, signal.SIGKILL)
    receiver.release.set()
    killed = _row(engine, endpoint_id)
    assert (killed.status, killed.attempts) == ("pending", 0) and killed.locked_until is not None
    assert _queued(delivery_id) == 0, "the consumer had taken the task: only the database remembers"

    second = start_consumer(ini, env)
    try:
        time.sleep(2.5)  # the dead consumer's claim (webhooks.claim_seconds = 2) runs out
        sweep_deliveries()  # the periodic sweep, queued for the consumer like the scheduler would
        assert wait_for(lambda: _row(engine, endpoint_id).status == "delivered", 45)
    finally:
        stop_consumer(second)
    assert len(receiver.requests) == 2
    for _, headers, body in receiver.requests:
        assert headers["webhook-id"] == str(event.id)
        assert Webhook(secret).verify(body, headers)["id"] == str(event.id)
    assert _row(engine, endpoint_id).attempts == 1
