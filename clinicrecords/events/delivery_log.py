"""An endpoint's deliveries log, newest first: each delivery with every attempt (time, status code,
duration, the first 1 KiB of the answer, when the next one was due). Filtered by status; paged by cursor
(`starting_after` = the last delivery id of the previous page), so new deliveries never shift a page."""

from dataclasses import dataclass

from sqlalchemy import select, tuple_

from clinicrecords.api.render import iso
from clinicrecords.events.models import WebhookAttempt, WebhookDelivery
from clinicrecords.events.errors import WebhookError
from clinicrecords.events.webhooks import as_id, get_endpoint

STATUSES = ("pending", "delivered", "failed", "cancelled")
DEFAULT_LIMIT = 20
MAX_LIMIT = 1000


@dataclass(frozen=True)
class LogPage:
    deliveries: list
    has_more: bool

    @property
    def next_cursor(self):
        return self.deliveries[-1]["delivery_id"] if self.has_more else None

    def as_dict(self):
        return {"deliveries": self.deliveries, "has_more": self.has_more, "next_cursor": self.next_cursor}


def _attempt_json(attempt):
    return {
        "attempted_at": iso(attempt.attempted_at),
        "status_code": attempt.status_code,
        "duration_ms": attempt.duration_ms,
        "response_body": attempt.response_body,
        "error": attempt.error,
        "next_attempt_at": iso(attempt.next_attempt_at),
    }


def _delivery_json(d, attempts):
    return {
        "delivery_id": str(d.id),
        "webhook_id": str(d.event_id),
        "type": d.type,
        "clinic_id": str(d.clinic_id) if d.clinic_id else None,
        "seq": d.seq,
        "status": d.status,
        "attempts": d.attempts,
        "last_attempt_at": iso(d.last_attempt_at),
        "last_status_code": d.last_status_code,
        "last_error": d.last_error,
        "next_attempt_at": iso(d.next_attempt_at) if d.status == "pending" else None,
        "delivered_at": iso(d.delivered_at),
        "created_at": iso(d.created_at),
        "attempt_log": [_attempt_json(a) for a in attempts],
    }


def page(db, endpoint_id, *, status=None, limit=DEFAULT_LIMIT, starting_after=None, owner=None):
    endpoint_id = get_endpoint(db, endpoint_id, owner=owner).id
    if status is not None and status not in STATUSES:
        raise WebhookError(f"status is one of {', '.join(STATUSES)}", "invalid_status", "status")
    if not 1 <= limit <= MAX_LIMIT:
        raise WebhookError(f"limit is 1 to {MAX_LIMIT}", "invalid_limit", "limit")
    order = (WebhookDelivery.created_at.desc(), WebhookDelivery.id.desc())
    statement = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
    if status is not None:
        statement = statement.where(WebhookDelivery.status == status)
    if starting_after is not None:
        cursor = db.get(WebhookDelivery, as_id(starting_after, "delivery"))
        if cursor is None or cursor.endpoint_id != endpoint_id:
            raise WebhookError("starting_after is not a delivery of this endpoint", "invalid_cursor",
                               "starting_after")
        statement = statement.where(tuple_(WebhookDelivery.created_at, WebhookDelivery.id)
                                    < tuple_(cursor.created_at, cursor.id))
    rows = list(db.scalars(statement.order_by(*order).limit(limit + 1)))
    shown = rows[:limit]
    attempts = {}
    if shown:
        for attempt in db.scalars(select(WebhookAttempt)
                                  .where(WebhookAttempt.delivery_id.in_([d.id for d in shown]))
                                  .order_by(WebhookAttempt.attempted_at, WebhookAttempt.id)):
            attempts.setdefault(attempt.delivery_id, []).append(attempt)
    return LogPage([_delivery_json(d, attempts.get(d.id, [])) for d in shown], len(rows) > limit)
