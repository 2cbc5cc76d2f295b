"""Delivering webhooks: claim a due delivery, send it signed, record the outcome, schedule the retry.

At-least-once: a delivery stays `pending` until an attempt got a 2xx. Every attempt carries the same
`webhook-id` (the event id). A worker holds a delivery with a short claim (`locked_until`) rather than an
open transaction, so no database connection waits on a slow receiver, and a killed worker's claim simply
runs out; the sweep then queues the delivery again.

Retry schedule (docs/events.md): after the n-th failed attempt the next one waits
uniform(0.5, 1.0) × min(retry_cap, retry_base × 2^(n-1)), i.e. about 10 s, 20 s, 40 s, ... capped at 6 h;
a delivery is given up (`failed`) once it is older than give_up_after (3 days); an endpoint that has failed
continuously for disable_after (5 days) is disabled.

Per-endpoint backoff: a failed attempt also pauses its endpoint (`paused_until`) for as long as it has been
failing, between retry_base and retry_cap. Deliveries to a paused endpoint are deferred without a request,
and a failing endpoint gets one probe at a time; so a receiver that hangs, resets or answers 500 costs the
workers one bounded attempt per pause, and other endpoints' deliveries are never held up behind it. A
successful attempt lifts the pause and makes the endpoint's deferred deliveries due again.
"""

import datetime
import logging
import random
import urllib.parse
from dataclasses import dataclass

from sqlalchemy import and_, delete, or_, select, update

from clinicrecords import clock, tasks
from clinicrecords.api.render import json_bytes
from clinicrecords.db import SESSION_FACTORY
from clinicrecords.events import routing, signing, transport, types
from clinicrecords.events.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from clinicrecords.events.outbox import queue_after_commit
from clinicrecords.events.published import EndpointDisabled, EndpointFailing
from clinicrecords.events.settings import webhook_settings
from clinicrecords.publishing import publish_in

log = logging.getLogger(__name__)


def _seconds(value):
    return datetime.timedelta(seconds=value)


def backoff_seconds(settings, attempts, rng=random):
    return tasks.backoff_seconds(attempts, settings.retry_base_seconds, settings.retry_cap_seconds, rng)


def signing_secrets(endpoint, now, box):
    """The current secret, and the previous one while the rotation's overlap lasts, opened for signing."""
    found = [box.open(endpoint.secret_sealed, endpoint.id)]
    if (endpoint.previous_secret_sealed and endpoint.previous_secret_expires_at
            and endpoint.previous_secret_expires_at > now):
        found.append(box.open(endpoint.previous_secret_sealed, endpoint.id))
    return found


# A probe to a failing endpoint holds the endpoint this much longer than the request's own time limit.
PROBE_MARGIN_SECONDS = 5.0


@dataclass(frozen=True)
class Outcome:
    status: str                 # delivered, retry, deferred, failed, cancelled, skipped
    retry_in: float | None = None
    status_code: int | None = None
    error: str | None = None
    seconds: float | None = None    # of the request, when one was made
    body: str | None = None         # the start of the receiver's answer
    endpoint_became: type | None = None  # EndpointFailing or EndpointDisabled when this attempt made it so


@dataclass(frozen=True)
class _Claimed:
    url: str
    body: bytes
    headers: dict


def _claim(db, settings, delivery_id, now):
    claimed = db.execute(
        update(WebhookDelivery)
        .where(WebhookDelivery.id == delivery_id, WebhookDelivery.status == "pending",
               WebhookDelivery.next_attempt_at <= now,
               or_(WebhookDelivery.locked_until.is_(None), WebhookDelivery.locked_until < now))
        .values(locked_until=now + _seconds(settings.claim_seconds), queued_for=None)
        .returning(WebhookDelivery.id)
    ).scalar()
    if claimed is None:
        return None
    delivery = db.get(WebhookDelivery, delivery_id)
    # Locked: workers decide one at a time whether a failing endpoint's probe is already out.
    endpoint = db.get(WebhookEndpoint, delivery.endpoint_id, with_for_update=True)
    if endpoint.disabled_at is not None and delivery.type != types.PING:
        delivery.locked_until = None
        return "skipped"
    if delivery.clinic_id is not None and not still_entitled(db, delivery, now):
        delivery.status, delivery.locked_until, delivery.last_error = "cancelled", None, "no longer entitled"
        return "cancelled"
    if delivery.type != types.PING:
        if endpoint.paused_until is not None and endpoint.paused_until > now:
            delivery.locked_until = None
            delivery.next_attempt_at = delivery.queued_for = endpoint.paused_until + _seconds(random.uniform(0, 1))
            return Outcome("deferred", (delivery.next_attempt_at - now).total_seconds())
        if endpoint.failing_since is not None:
            endpoint.paused_until = now + _seconds(settings.timeout_seconds + PROBE_MARGIN_SECONDS)
    body = json_bytes(delivery.payload)
    headers = signing.headers(signing_secrets(endpoint, now, settings.secret_box), delivery.event_id,
                              now.timestamp(), body)
    return _Claimed(endpoint.url, body, headers)


def still_entitled(db, delivery, now):
    """A connection revoked or narrowed since the event stops its deliveries to that organization. (The
    audience of an addressed type was checked when the delivery was made and cannot change.)"""
    found = routing.targets(db, delivery.clinic_id, now, endpoint_id=delivery.endpoint_id)
    if not found:
        return False
    event_type = types.EVENT_TYPES.get(delivery.type)
    return event_type is not None and event_type.permitted(found[0].granted, delivery.payload.get("data"))


def _record(db, settings, delivery_id, result, now):
    delivery = db.get(WebhookDelivery, delivery_id, with_for_update=True)
    if delivery is None:  # the endpoint was deleted meanwhile
        return Outcome("cancelled")
    endpoint = db.get(WebhookEndpoint, delivery.endpoint_id, with_for_update=True)
    delivery.attempts += 1
    delivery.last_attempt_at = now
    delivery.last_status_code = result.status_code
    delivery.last_error = result.error
    delivery.locked_until = None
    logged = WebhookAttempt(delivery_id=delivery.id, attempted_at=now, status_code=result.status_code,
                            duration_ms=round(result.seconds * 1000), response_body=result.body,
                            error=result.error[:500] if result.error else None)
    db.add(logged)
    answer = {"status_code": result.status_code, "seconds": result.seconds, "body": result.body}
    if result.ok:
        delivery.status, delivery.delivered_at = "delivered", now
        if endpoint.disabled_at is not None and delivery.type == types.PING and not endpoint.disabled_manually:
            enable(db, endpoint, now)
        elif endpoint.failing_since is not None:
            _resume(db, endpoint, now)
        endpoint.failing_since = endpoint.paused_until = None
        return Outcome("delivered", **answer)
    # The first failure after a success starts a failing streak (told once: EndpointFailing).
    became = EndpointFailing if endpoint.failing_since is None and endpoint.disabled_at is None else None
    endpoint.failing_since = endpoint.failing_since or now
    failing_for = (now - endpoint.failing_since).total_seconds()
    pause = min(settings.retry_cap_seconds, max(settings.retry_base_seconds, failing_for))
    endpoint.paused_until = now + _seconds(pause)
    if endpoint.disabled_at is None and now - endpoint.failing_since >= _seconds(settings.disable_after_seconds):
        endpoint.disabled_at = now
        endpoint.disabled_reason = f"failing continuously since {endpoint.failing_since.isoformat()}"
        became = EndpointDisabled
    if now - delivery.created_at >= _seconds(settings.give_up_after_seconds) or delivery.type == types.PING:
        delivery.status = "failed"
        return Outcome("failed", error=result.error, endpoint_became=became, **answer)
    retry_in = backoff_seconds(settings, delivery.attempts)
    delivery.next_attempt_at = logged.next_attempt_at = now + _seconds(retry_in)
    delivery.queued_for = delivery.next_attempt_at
    return Outcome("retry", retry_in, error=result.error, endpoint_became=became, **answer)


def _trouble(db, delivery_id, outcome):
    """The moment an attempt's outcome made of its endpoint, as other contexts hear of it."""
    delivery = db.get(WebhookDelivery, delivery_id)
    endpoint = db.get(WebhookEndpoint, delivery.endpoint_id)
    host = urllib.parse.urlsplit(endpoint.url).hostname or ""
    return outcome.endpoint_became(endpoint.id, endpoint.workspace_id, endpoint.clinic_id, endpoint.mode, host,
                                   outcome.error or "")


def _resume(db, endpoint, now):
    """The endpoint answers again: what was deferred behind its pause is due now (the sweep queues it)."""
    db.execute(update(WebhookDelivery)
               .where(WebhookDelivery.endpoint_id == endpoint.id, WebhookDelivery.status == "pending",
                      WebhookDelivery.next_attempt_at > now)
               .values(next_attempt_at=now, queued_for=None))


def enable(db, endpoint, now):
    """Enable a disabled endpoint (its owner, or a successful ping after failures): its failures are
    forgotten and its pending deliveries are due at once, queued when the transaction commits."""
    endpoint.disabled_at = endpoint.disabled_reason = None
    endpoint.disabled_manually = False
    endpoint.failing_since = endpoint.paused_until = None
    due = list(db.scalars(update(WebhookDelivery)
                          .where(WebhookDelivery.endpoint_id == endpoint.id, WebhookDelivery.status == "pending")
                          .values(next_attempt_at=now, queued_for=now)
                          .returning(WebhookDelivery.id)))
    queue_after_commit(db, due)


def attempt(registry, delivery_id):
    """One attempt of one delivery, if it is due and nobody else holds it."""
    return attempt_with(registry[SESSION_FACTORY], webhook_settings(registry), delivery_id, registry)


def attempt_with(session_factory, settings, delivery_id, registry=None):
    """`attempt`, given what it needs: its own short transactions, none held during the request. Given the
    `registry`, an endpoint that starts failing or is disabled by this attempt is published
    (`clinicrecords.publishing`) in the transaction that records it."""
    now = clock.now()
    with session_factory.begin() as db:
        claimed = _claim(db, settings, delivery_id, now)
    if claimed is None:
        return Outcome("skipped")
    if isinstance(claimed, str):
        return Outcome(claimed)
    if isinstance(claimed, Outcome):
        return claimed
    result = transport.post(claimed.url, claimed.body, claimed.headers, settings.timeout_seconds,
                            settings.allow_private_addresses, settings.require_https)
    with session_factory.begin() as db:
        outcome = _record(db, settings, delivery_id, result, clock.now())
        if outcome.endpoint_became is not None and registry is not None:
            publish_in(registry, db, _trouble(db, delivery_id, outcome))
    # One line per attempt: ids, the answer's status and time, never the URL (it may carry a token) or a body.
    log.log(logging.INFO if outcome.status == "delivered" else logging.WARNING, "webhook attempt", extra={
        "delivery_id": str(delivery_id), "outcome": outcome.status, "status_code": result.status_code,
        "duration_ms": round(result.seconds * 1000, 1)})
    return outcome


def sweep(db, settings, now=None, limit=1000):
    """Deliveries that are due, not held and not expected by a queued task: mark them queued and return
    their ids for the caller to enqueue after commit. A lost queue or a killed worker loses nothing."""
    now = now or clock.now()
    grace = now - _seconds(settings.sweep_grace_seconds)
    due = (
        select(WebhookDelivery.id)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(WebhookDelivery.status == "pending", WebhookEndpoint.disabled_at.is_(None),
               WebhookDelivery.next_attempt_at <= now,
               or_(WebhookDelivery.locked_until.is_(None), WebhookDelivery.locked_until < now),
               or_(WebhookDelivery.queued_for.is_(None), WebhookDelivery.queued_for < grace))
        .order_by(WebhookDelivery.next_attempt_at)
        .limit(limit)
        .with_for_update(of=WebhookDelivery, skip_locked=True)
    )
    ids = list(db.scalars(due))
    if ids:
        db.execute(update(WebhookDelivery).where(WebhookDelivery.id.in_(ids)).values(queued_for=now))
    db.execute(update(WebhookEndpoint).where(WebhookEndpoint.previous_secret_expires_at < now)
               .values(previous_secret_sealed=None, previous_secret_expires_at=None))
    give_up = now - _seconds(settings.give_up_after_seconds)
    db.execute(update(WebhookDelivery)
               .where(and_(WebhookDelivery.status == "pending", WebhookDelivery.created_at < give_up,
                           WebhookDelivery.endpoint_id.in_(select(WebhookEndpoint.id)
                                                           .where(WebhookEndpoint.disabled_at.is_not(None)))))
               .values(status="failed", last_error="given up while the endpoint was disabled"))
    return ids


def prune_deliveries(db, older_than):
    return db.execute(delete(WebhookDelivery).where(WebhookDelivery.created_at < older_than)).rowcount
