"""A real Huey consumer (file-backed queue) killed with SIGKILL in the middle of a stream of webhook
deliveries to two endpoints, then a new consumer: every event reaches every endpoint, each delivery row is
recorded delivered once, and a receiver deduplicating by `webhook-id` counts each event exactly once (the
only repeats are the deliveries that were in flight at the kill, sent again with the same id).

The import half of this fault (a consumer killed mid-import, no patient written twice) is
tests/patient_imports/test_worker_crash.py; a single delivery killed in flight is tests/events/test_worker.py."""

import signal
import time

from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from clinicrecords.events.models import WebhookDelivery
from clinicrecords.events.tasks import sweep_deliveries
from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for
from tests.events.support import Receiver, emit_events

EVENTS = 10
WORKERS = 2


def _statuses(engine, endpoint_ids):
    with engine.connect() as connection:
        return connection.execute(select(WebhookDelivery.status, WebhookDelivery.attempts)
                                  .where(WebhookDelivery.endpoint_id.in_(endpoint_ids))).all()


def test_a_consumer_killed_mid_stream_delivers_every_event_once_per_endpoint(world, engine, queue_on_disk):
    ini, env = consumer_config(queue_on_disk, engine, "webhooks.timeout_seconds = 10\nwebhooks.claim_seconds = 2")
    with Receiver(delay=0.4) as first, Receiver(delay=0.4) as second:
        clinic_id = world.clinic()
        endpoints = [world.webhook(clinic_id=clinic_id, url=receiver.url) for receiver in (first, second)]
        events = emit_events(world, clinic_id, EVENTS)
        endpoint_ids = [endpoint_id for endpoint_id, _ in endpoints]

        killed = start_consumer(ini, env, WORKERS)
        try:
            assert wait_for(lambda: len(first.requests) + len(second.requests) >= 4, 45), "the consumer started"
        finally:
            stop_consumer(killed, signal.SIGKILL)
        after_kill = _statuses(engine, endpoint_ids)
        assert {status for status, _ in after_kill} == {"delivered", "pending"}, "killed in the middle"

        restarted = start_consumer(ini, env, WORKERS)
        try:
            time.sleep(2.5)  # the killed consumer's claims (webhooks.claim_seconds = 2) run out
            sweep_deliveries()  # the periodic sweep: queues what the dead consumer had taken
            assert wait_for(lambda: {s for s, _ in _statuses(engine, endpoint_ids)} == {"delivered"}, 60)
        finally:
            stop_consumer(restarted)

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
