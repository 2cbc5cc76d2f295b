"""Webhook endpoints, managed by operators (`clinicrecords-admin ... webhook ...`): add, list, ping, replay,
rotate the secret, delete, and list deliveries."""

import datetime
import uuid

from sqlalchemy import select

from clinicrecords.access.models import Workspace
from clinicrecords.api.render import iso
from clinicrecords.clinics.models import Clinic
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput
from clinicrecords.events import routing, signing, transport, types
from clinicrecords.events.feed import RETENTION
from clinicrecords.events.models import Event, WebhookDelivery, WebhookEndpoint
from clinicrecords.events.outbox import queue_after_commit
from clinicrecords.events.secret_box import SecretBoxError
from clinicrecords.events.representations import event_json

REPLAY_LIMIT = 10_000
DELIVERIES_LIMIT = 1000


class WebhookError(InvalidInput):
    """Bad input for a webhook operation; nothing was written."""


def _now():
    return datetime.datetime.now(datetime.UTC)


def parse_types(text):
    names = sorted({part.strip() for part in text.split(",") if part.strip()})
    unknown = [name for name in names if name not in types.EVENT_TYPES]
    if unknown:
        raise WebhookError(f"unknown event type(s): {', '.join(unknown)}; known: {', '.join(types.EVENT_TYPES)}")
    if not names:
        raise WebhookError("--types needs at least one event type")
    return names


def add_endpoint(db, settings, url, *, workspace_id=None, mode=None, clinic_id=None, event_types=None):
    """Returns (endpoint, secret). The secret signs every delivery; it is shown again only by rotation."""
    if (workspace_id is None) == (clinic_id is None):
        raise WebhookError("an endpoint belongs to exactly one workspace (--workspace ID --mode) or clinic (--clinic ID)")
    if workspace_id is not None:
        if db.get(Workspace, workspace_id) is None:
            raise WebhookError(f"no workspace {workspace_id}")
        if mode not in ("live", "test"):
            raise WebhookError("--workspace needs --mode live or --mode test")
    else:
        clinic = db.get(Clinic, clinic_id)
        if clinic is None:
            raise WebhookError(f"no clinic {clinic_id}")
        if clinic.is_sandbox:
            raise WebhookError("a sandbox clinic's events go to its workspace's test endpoints: use "
                               "--workspace ID --mode test")
        if mode not in (None, "live"):
            raise WebhookError("a clinic's endpoint is always live; --mode is for workspace endpoints")
        mode = "live"
    try:
        transport.check_url(url, settings.allow_private_addresses, settings.require_https)
    except transport.AddressRefused as exc:
        raise WebhookError(f"--url: {exc}") from None
    secret = signing.new_secret()
    endpoint_id = uuid.uuid4()
    endpoint = WebhookEndpoint(id=endpoint_id, workspace_id=workspace_id, clinic_id=clinic_id, mode=mode, url=url,
                               types=list(event_types) if event_types is not None else None,
                               secret_sealed=settings.secret_box.seal(secret, endpoint_id))
    db.add(endpoint)
    db.flush()
    return endpoint, secret


def get_endpoint(db, endpoint_id, lock=False):
    endpoint = db.get(WebhookEndpoint, endpoint_id, with_for_update=lock)
    if endpoint is None:
        raise WebhookError(f"no webhook endpoint {endpoint_id}")
    return endpoint


def describe(endpoint):
    return {
        "endpoint_id": str(endpoint.id),
        "owner": {"type": "clinic", "id": str(endpoint.clinic_id)} if endpoint.clinic_id
        else {"type": "workspace", "id": str(endpoint.workspace_id)},
        "mode": endpoint.mode,
        "url": endpoint.url,
        "types": endpoint.types,
        "status": "disabled" if endpoint.disabled_at else ("failing" if endpoint.failing_since else "enabled"),
        "failing_since": iso(endpoint.failing_since),
        "paused_until": iso(endpoint.paused_until),
        "disabled_at": iso(endpoint.disabled_at),
        "disabled_reason": endpoint.disabled_reason,
        "previous_secret_expires_at": iso(endpoint.previous_secret_expires_at),
        "created_at": iso(endpoint.created_at),
    }


def list_endpoints(db, workspace_id=None, clinic_id=None):
    statement = select(WebhookEndpoint).order_by(WebhookEndpoint.created_at, WebhookEndpoint.id)
    if workspace_id is not None:
        statement = statement.where(WebhookEndpoint.workspace_id == workspace_id)
    if clinic_id is not None:
        statement = statement.where(WebhookEndpoint.clinic_id == clinic_id)
    return list(db.scalars(statement))


def rotate_secret(db, settings, endpoint_id, now=None):
    """A new secret signs at once; the old one keeps signing too (two signatures) for the overlap.
    Returns (endpoint, new secret)."""
    now = now or _now()
    endpoint = get_endpoint(db, endpoint_id, lock=True)
    secret = signing.new_secret()
    endpoint.previous_secret_sealed = endpoint.secret_sealed
    endpoint.previous_secret_expires_at = now + datetime.timedelta(seconds=settings.secret_overlap_seconds)
    endpoint.secret_sealed = settings.secret_box.seal(secret, endpoint.id)
    db.flush()
    return endpoint, secret


def reseal_secrets(db, settings):
    """Seal again, under the current key, every secret sealed under an older one (after a key rotation).
    Returns the number of endpoints changed; once it has run, the old keys can leave the setting."""
    box = settings.secret_box
    changed = 0
    for endpoint in db.scalars(select(WebhookEndpoint).order_by(WebhookEndpoint.id).with_for_update()):
        touched = False
        for column in ("secret_sealed", "previous_secret_sealed"):
            sealed = getattr(endpoint, column)
            if sealed is not None and box.needs_reseal(sealed):
                try:
                    secret = box.open(sealed, endpoint.id)
                except SecretBoxError as exc:
                    raise WebhookError(f"endpoint {endpoint.id}: {exc}; nothing was resealed") from None
                setattr(endpoint, column, box.seal(secret, endpoint.id))
                touched = True
        changed += touched
    db.flush()
    return changed


def delete_endpoint(db, endpoint_id):
    """The endpoint and its deliveries (the foreign key cascades). Effective for the next event."""
    db.delete(get_endpoint(db, endpoint_id))
    db.flush()


def ping(db, endpoint_id, now=None):
    """A `webhook.ping` delivery: signed like any event, never retried, and sent to a disabled endpoint too
    (a successful ping re-enables it)."""
    now = now or _now()
    endpoint = get_endpoint(db, endpoint_id)
    event_id = uuid.uuid4()
    payload = {"id": str(event_id), "type": types.PING,
               "clinic_id": str(endpoint.clinic_id) if endpoint.clinic_id else None,
               "subject_id": str(endpoint.id), "seq": None, "data": {"endpoint_id": str(endpoint.id)},
               "created_at": iso(now)}
    delivery = WebhookDelivery(id=uuid.uuid4(), endpoint_id=endpoint.id, clinic_id=None, event_id=event_id,
                               seq=None, type=types.PING, payload=payload, status="pending", attempts=0,
                               next_attempt_at=now, queued_for=now)
    db.add(delivery)
    db.flush()
    return delivery


def replay(db, endpoint_id, *, event_id=None, after_seq=None, clinic_id=None, now=None):
    """Deliver again one event, or every kept event of a clinic after a seq, to one endpoint, under the same
    rules as a first delivery (the endpoint must still be entitled). The `webhook-id` is the event id as
    before, so a receiver that already has the event can recognise it. Returns the number queued."""
    now = now or _now()
    endpoint = get_endpoint(db, endpoint_id)
    if endpoint.disabled_at is not None:
        raise WebhookError("the endpoint is disabled: `webhook test` it first (a successful ping re-enables it)")
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
    found = routing.targets(db, clinic_id, now, endpoint_id=endpoint.id)
    if not found:
        raise WebhookError(f"the endpoint does not receive events of clinic {clinic_id}")
    target = found[0]
    if open_clinic(db, clinic_id) is None:
        raise WebhookError(f"no clinic {clinic_id}")
    statement = select(Event).where(Event.created_at >= now - RETENTION).order_by(Event.seq)
    if event_id is not None:
        statement = statement.where(Event.id == event_id)
    else:
        statement = statement.where(Event.seq > after_seq).limit(REPLAY_LIMIT)
    events = list(db.scalars(statement))
    if event_id is not None and not events:
        raise WebhookError(f"no event {event_id} is kept for clinic {clinic_id}")
    ids = []
    for event in events:
        if not target.entitled(event.type, event.data, event.audience_id, event.origin_id):
            continue
        delivery = WebhookDelivery(id=uuid.uuid4(), endpoint_id=endpoint.id, clinic_id=clinic_id,
                                   event_id=event.id, seq=event.seq, type=event.type, payload=event_json(event),
                                   status="pending", attempts=0, next_attempt_at=now, queued_for=now)
        db.add(delivery)
        ids.append(delivery.id)
    if event_id is not None and not ids:
        raise WebhookError("the endpoint is not entitled to that event (type, permission or audience)")
    db.flush()
    queue_after_commit(db, ids)
    return len(ids)


def deliveries(db, endpoint_id, limit=50, status=None):
    get_endpoint(db, endpoint_id)
    statement = (select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
                 .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id).limit(limit))
    if status is not None:
        statement = statement.where(WebhookDelivery.status == status)
    return [{
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
    } for d in db.scalars(statement)]
