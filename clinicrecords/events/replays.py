"""Sending again: one event, a clinic's events after a seq, one earlier delivery ("resend"), or every
kept event since a time across the clinics an endpoint receives ("recover", after an outage or while it was
disabled). Each becomes a new delivery under the same rules as a first one (the endpoint must still be
entitled), with the event id as `webhook-id` as before, so a receiver that has it already recognises it."""

import uuid

from sqlalchemy import select

from clinicrecords import clock
from clinicrecords.clinics.services import open_clinic
from clinicrecords.events import routing
from clinicrecords.events.delivery import still_entitled
from clinicrecords.events.feed import RETENTION
from clinicrecords.events.models import Event, WebhookDelivery
from clinicrecords.events.outbox import queue_after_commit
from clinicrecords.events.representations import event_json
from clinicrecords.events.errors import WebhookError
from clinicrecords.events.webhooks import as_id, get_endpoint

REPLAY_LIMIT = 10_000


def _enabled_endpoint(db, endpoint_id, owner):
    endpoint = get_endpoint(db, endpoint_id, owner=owner)
    if endpoint.disabled_at is not None:
        raise WebhookError("the endpoint is disabled: enable it (or send a successful test event) first",
                           "endpoint_disabled")
    return endpoint


def _new_delivery(db, endpoint_id, now, *, clinic_id, event_id, seq, type_, payload):
    delivery = WebhookDelivery(id=uuid.uuid4(), endpoint_id=endpoint_id, clinic_id=clinic_id, event_id=event_id,
                               seq=seq, type=type_, payload=payload, status="pending", attempts=0,
                               next_attempt_at=now, queued_for=now)
    db.add(delivery)
    return delivery


def _owed(db, endpoint, clinic_id, now, statement):
    """The kept events of a clinic chosen by `statement` that the endpoint is entitled to now."""
    found = routing.targets(db, clinic_id, now, endpoint_id=endpoint.id)
    if not found or open_clinic(db, clinic_id) is None:
        return []
    target = found[0]
    events = list(db.scalars(statement.where(Event.created_at >= now - RETENTION).order_by(Event.seq)
                             .limit(REPLAY_LIMIT + 1)))
    if len(events) > REPLAY_LIMIT:  # refused before filtering, so nothing entitled is ever cut off silently
        _too_many()
    return [(clinic_id, event) for event in events
            if target.entitled(event.type, event.data, event.audience_id, event.origin_id)]


def _too_many():
    raise WebhookError(f"more than {REPLAY_LIMIT} events: choose a later time or seq", "too_many_events", "since")


def _queue(db, endpoint, owed, now):
    if len(owed) > REPLAY_LIMIT:
        _too_many()
    ids = [_new_delivery(db, endpoint.id, now, clinic_id=clinic_id, event_id=event.id, seq=event.seq,
                         type_=event.type, payload=event_json(event)).id for clinic_id, event in owed]
    db.flush()
    queue_after_commit(db, ids)
    return len(ids)


def replay(db, endpoint_id, *, event_id=None, after_seq=None, clinic_id=None, now=None, owner=None):
    """Deliver again one event, or every kept event of a clinic after a seq. Returns the number queued."""
    now = now or clock.now()
    endpoint = _enabled_endpoint(db, endpoint_id, owner)
    if (event_id is None) == (after_seq is None):
        raise WebhookError("give --event ID, or --after-seq N with --clinic ID")
    if after_seq is not None and (clinic_id is None or after_seq < 0):
        raise WebhookError("--after-seq needs a whole number >= 0 and --clinic ID")
    if clinic_id is None:
        clinic_id = endpoint.clinic_id or db.scalar(
            select(WebhookDelivery.clinic_id).where(WebhookDelivery.endpoint_id == endpoint.id,
                                                    WebhookDelivery.event_id == event_id).limit(1))
        if clinic_id is None:
            raise WebhookError("give --clinic ID: this endpoint has no earlier delivery of that event")
    if not routing.targets(db, clinic_id, now, endpoint_id=endpoint.id):
        raise WebhookError(f"the endpoint does not receive events of clinic {clinic_id}", "not_entitled")
    if event_id is not None:
        if open_clinic(db, clinic_id) is None or db.scalar(
                select(Event.id).where(Event.id == event_id, Event.created_at >= now - RETENTION)) is None:
            raise WebhookError(f"no event {event_id} is kept for clinic {clinic_id}", "event_not_found")
        owed = _owed(db, endpoint, clinic_id, now, select(Event).where(Event.id == event_id))
        if not owed:
            raise WebhookError("the endpoint is not entitled to that event (type, permission or audience)",
                               "not_entitled")
    else:
        owed = _owed(db, endpoint, clinic_id, now, select(Event).where(Event.seq > after_seq))
    return _queue(db, endpoint, owed, now)


def recover(db, endpoint_id, since, now=None, owner=None):
    """Every kept event since `since` (within the feed's 30 days) of every clinic the endpoint receives,
    that it is entitled to now. All or nothing: more than REPLAY_LIMIT is refused. Returns the number queued."""
    now = now or clock.now()
    if since.tzinfo is None:
        raise WebhookError("the time needs a UTC offset (e.g. 2026-01-31T08:00:00Z)", "invalid_since", "since")
    if not now - RETENTION <= since <= now:
        raise WebhookError(f"the time must be within the last {RETENTION.days} days (events are kept that long)",
                           "invalid_since", "since")
    endpoint = _enabled_endpoint(db, endpoint_id, owner)
    owed = []
    for clinic_id in routing.clinics_of(db, endpoint, now):
        owed += _owed(db, endpoint, clinic_id, now, select(Event).where(Event.created_at >= since))
        if len(owed) > REPLAY_LIMIT:
            break
    return _queue(db, endpoint, owed, now)


def resend(db, endpoint_id, delivery_id, now=None, owner=None):
    """One earlier delivery sent again as a new one (a test event too). Returns the new delivery's id."""
    now = now or clock.now()
    endpoint = _enabled_endpoint(db, endpoint_id, owner)
    original = db.get(WebhookDelivery, as_id(delivery_id, "delivery"))
    if original is None or original.endpoint_id != endpoint.id:
        raise WebhookError(f"no delivery {delivery_id} to this endpoint", "not_found")
    if original.clinic_id is not None and not still_entitled(db, original, now):
        raise WebhookError("the endpoint is no longer entitled to that event (connection or permission)",
                           "not_entitled")
    delivery = _new_delivery(db, endpoint.id, now, clinic_id=original.clinic_id, event_id=original.event_id,
                             seq=original.seq, type_=original.type, payload=original.payload)
    db.flush()
    queue_after_commit(db, [delivery.id])
    return {"delivery_id": str(delivery.id), "webhook_id": str(delivery.event_id)}
