"""What a Redis failover may lose (decision 0080): Redis replicates asynchronously, so a promoted replica may
lack deliveries the old primary had acknowledged. Each delivery is a row; the per-minute sweep queues the due
ones no queued task is expected to run any more, and the receiver gets the event exactly once."""

import datetime

from sqlalchemy import select, update

from clinicrecords import tasks
from clinicrecords.events.models import WebhookDelivery
from clinicrecords.events.tasks import sweep_deliveries
from clinicrecords.settings import read
from tests.events.support import emit_events


def _run_the_queue():
    while tasks.huey.pending_count():
        tasks.huey.execute(tasks.huey.dequeue())


def test_a_delivery_redis_lost_is_swept_back_and_arrives_once(settings, redis_server, world, engine, receiver):
    clinic_id = world.clinic()
    endpoint_id, _ = world.webhook(clinic_id=clinic_id, url=receiver.url)
    tasks.configure(read({**settings, "huey.backend": "redis", "huey.redis_url": redis_server.url,
                          "huey.immediate": "false"}))
    try:
        with redis_server.client() as client:
            client.flushall()
            [event] = emit_events(world, clinic_id)
            assert tasks.huey.pending_count() == 1
            client.flushall()  # the queue as a promoted replica that never had it sees it
        sweep_deliveries.call_local()
        _run_the_queue()
        assert receiver.requests == [], "within the grace period a queued task is still expected"
        with engine.begin() as connection:  # the grace period (webhooks.sweep_grace_seconds) is over
            connection.execute(update(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id).values(
                queued_for=datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=2)))
        sweep_deliveries.call_local()
        _run_the_queue()
        sweep_deliveries.call_local()  # once delivered, nothing is swept again
        _run_the_queue()
    finally:
        tasks.configure(read(settings))
    assert [request[1]["webhook-id"] for request in receiver.requests] == [str(event.id)]
    with engine.connect() as connection:
        assert connection.execute(select(WebhookDelivery.status).where(
            WebhookDelivery.endpoint_id == endpoint_id)).scalars().all() == ["delivered"]
