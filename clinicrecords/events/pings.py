"""Test events: a signed `webhook.ping` sent at once, its answer returned to the caller (the portal page,
`webhook test`). Bounded by `webhooks.timeout_seconds` and checked like any delivery (address rules, a
pinned connection). It is recorded as a delivery with its attempt, so it shows in the deliveries log; it is
never retried, and it goes to a disabled endpoint too: one disabled after failures is enabled again by a
2xx (one its owner disabled stays disabled)."""

import uuid

from clinicrecords import clock
from clinicrecords.api.render import iso
from clinicrecords.events import delivery, types
from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint
from clinicrecords.events.secret_box import SecretBoxError
from clinicrecords.events.errors import WebhookError
from clinicrecords.events.webhooks import get_endpoint, status_of


def record_ping(db, endpoint_id, now=None, owner=None):
    now = now or clock.now()
    endpoint = get_endpoint(db, endpoint_id, owner=owner)
    event_id = uuid.uuid4()
    payload = {"id": str(event_id), "type": types.PING,
               "clinic_id": str(endpoint.clinic_id) if endpoint.clinic_id else None,
               "subject_id": str(endpoint.id), "seq": None, "data": {"endpoint_id": str(endpoint.id)},
               "created_at": iso(now)}
    ping = WebhookDelivery(id=uuid.uuid4(), endpoint_id=endpoint.id, clinic_id=None, event_id=event_id,
                           seq=None, type=types.PING, payload=payload, status="pending", attempts=0,
                           next_attempt_at=now, queued_for=now)
    db.add(ping)
    db.flush()
    return ping


def send_test(session_factory, settings, endpoint_id, owner=None, registry=None):
    """Record a ping, send it now, and return the receiver's answer: status code, duration, the first 1 KiB
    of its body. Runs its own short transactions (none is held during the request). Given the `registry`, a
    failure that starts the endpoint's failing streak is published as a delivery's is."""
    with session_factory.begin() as db:
        endpoint = get_endpoint(db, endpoint_id, owner=owner)
        try:  # before the ping is recorded, so a refusal changes nothing
            settings.secret_box.open(endpoint.secret_sealed, endpoint.id)
        except SecretBoxError as error:
            raise WebhookError(str(error), "secret_unavailable") from None
        ping = record_ping(db, endpoint.id, owner=owner)
        endpoint_id, delivery_id, webhook_id = endpoint.id, ping.id, ping.event_id
    outcome = delivery.attempt_with(session_factory, settings, delivery_id, registry)
    with session_factory.begin() as db:
        endpoint = db.get(WebhookEndpoint, endpoint_id)
        endpoint_status = status_of(endpoint) if endpoint is not None else "deleted"
    return {"endpoint_id": str(endpoint_id), "delivery_id": str(delivery_id), "webhook_id": str(webhook_id),
            "delivered": outcome.status == "delivered", "status_code": outcome.status_code,
            "duration_ms": round(outcome.seconds * 1000) if outcome.seconds is not None else None,
            "response_body": outcome.body, "error": outcome.error, "endpoint_status": endpoint_status}
