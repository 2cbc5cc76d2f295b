"""Recording events. `emit` runs inside the caller's transaction: a rolled-back change leaves no event.

The recording rule (spec Events rule 5): an event is recorded only while the clinic has a webhook endpoint,
or is reached by one (docs/events.md); otherwise `emit` writes nothing and takes no lock. Each recorded
event also becomes one delivery row per entitled endpoint, in the same transaction; their tasks are queued
once that transaction has committed (and any that get lost are found again by the sweep).
"""

import json
import logging
import uuid

from sqlalchemy import event as sa_event
from sqlalchemy.dialects.postgresql import insert

from clinicrecords import clock
from clinicrecords.events import routing, types
from clinicrecords.events.models import Event, EventCounter, WebhookDelivery
from clinicrecords.events.representations import event_json

log = logging.getLogger(__name__)

MAX_DATA_BYTES = 1000
_STATE = "events.outbox"
_LISTENING = "events.outbox.listening"


def next_seq(db):
    statement = insert(EventCounter).values(id=1, value=1)
    statement = statement.on_conflict_do_update(index_elements=[EventCounter.id],
                                                set_={"value": EventCounter.value + 1})
    return db.execute(statement.returning(EventCounter.value)).scalar_one()


def emit(db, clinic_id, type_, subject_id, data, *, audience_id=None, origin_id=None):
    """Record an event for the clinic the session is bound to, or nothing (None) when no endpoint would
    ever hear of it. `data` is small and never a record or patient information.

    `audience_id`: the one owner (workspace or clinic) an addressed type is for (submission.decided: the
    sender; patient_import.finished: the clinic). `origin_id`: the owner whose write caused the event.
    """
    types.get(type_)
    if not isinstance(data, dict) or len(json.dumps(data, default=str)) > MAX_DATA_BYTES:
        raise ValueError("event data is a small object, never a record")
    state = _transaction_state(db)
    found = state["targets"].get(clinic_id)
    if found is None:
        found = state["targets"][clinic_id] = routing.targets(db, clinic_id)
    if not found:
        return None
    event = Event(id=uuid.uuid4(), seq=next_seq(db), type=type_, clinic_id=clinic_id, subject_id=subject_id,
                  data=data, audience_id=audience_id, origin_id=origin_id)
    db.add(event)
    db.flush()
    payload = event_json(event)
    now = clock.now()
    for target in found:
        if target.disabled or not target.entitled(type_, data, audience_id, origin_id):
            continue
        delivery = WebhookDelivery(id=uuid.uuid4(), endpoint_id=target.endpoint_id, clinic_id=clinic_id,
                                   event_id=event.id, seq=event.seq, type=type_, payload=payload,
                                   status="pending", attempts=0, next_attempt_at=now, queued_for=now)
        db.add(delivery)
        state["deliveries"].append(delivery.id)
    db.flush()
    return event


def queue_after_commit(db, delivery_ids):
    """Queue delivery tasks once the session's current transaction has committed."""
    _transaction_state(db)["deliveries"].extend(delivery_ids)


def _transaction_state(db):
    if not db.info.get(_LISTENING):
        sa_event.listen(db, "after_commit", _after_commit)
        sa_event.listen(db, "after_transaction_end", _after_transaction_end)
        db.info[_LISTENING] = True
    return db.info.setdefault(_STATE, {"targets": {}, "deliveries": [], "committed": False})


def _after_commit(session):
    if session.get_nested_transaction() is None and _STATE in session.info:
        session.info[_STATE]["committed"] = True


def _after_transaction_end(session, transaction):
    # Only the outermost transaction: by then its connection is back in the pool, so a task running at
    # once (Huey's immediate mode) cannot starve the pool.
    if transaction.parent is not None or transaction.nested:
        return
    state = session.info.pop(_STATE, None)
    if state and state["committed"] and state["deliveries"]:
        enqueue_deliveries(state["deliveries"])


# The Huey task that delivers one webhook. It is defined in events.tasks, which builds on this module (its
# sweep queues through it), so that module names it here once it is loaded (the application scans it).
_delivery_task = {}


def deliver_with(task):
    """Queue deliveries through `task` (events.tasks.deliver)."""
    _delivery_task["deliver"] = task


def enqueue_deliveries(delivery_ids):
    for delivery_id in delivery_ids:
        try:
            _delivery_task["deliver"](str(delivery_id))
        except Exception:  # a queue that is down must not fail a committed change; the sweep re-enqueues
            log.exception("could not queue webhook delivery %s; the sweep will", delivery_id)
