"""Webhook endpoints: add, list, rotate the secret, disable, enable, delete. Used by the operator CLI
(`clinicrecords-admin ... webhook ...`, every endpoint) and by the portal through the services in
`events/services.py` (an `Owner`'s endpoints only). Deliveries, replays and the log: `events/replays.py`,
`events/delivery_log.py`; test events: `events/pings.py`."""

import datetime
import uuid

from sqlalchemy import select

from clinicrecords import clock
from clinicrecords.access.services import AccessError, get_clinic, get_workspace
from clinicrecords.api.render import iso
from clinicrecords.events import delivery, signing, transport, types
from clinicrecords.events.errors import EndpointNotFound, WebhookError
from clinicrecords.events.models import WebhookEndpoint
from clinicrecords.events.secret_box import SecretBoxError

MODES = ("live", "test")
MAX_OVERLAP_SECONDS = 7 * 86400
MANUAL_DISABLE_REASON = "disabled by its owner"


def parse_types(text):
    return check_types(part.strip() for part in text.split(",") if part.strip())


def check_types(names):
    """The chosen event types, sorted and checked against the known ones (`events/types.py`)."""
    names = sorted(set(names))
    unknown = [name for name in names if name not in types.EVENT_TYPES]
    if unknown:
        raise WebhookError(f"unknown event type(s): {', '.join(unknown)}; known: {', '.join(types.EVENT_TYPES)}",
                           "unknown_event_type", "types")
    if not names:
        raise WebhookError("choose at least one event type (or none to receive every type)", "no_event_types",
                           "types")
    return names


def check_url(settings, url):
    """https, or plain http to a loopback address where `webhooks.require_https` is off (development)."""
    try:
        transport.check_url(url, settings.allow_private_addresses, settings.require_https)
    except transport.AddressRefused as exc:
        raise WebhookError(str(exc), "url_refused", "url") from None


def add_endpoint(db, settings, url, *, workspace_id=None, mode=None, clinic_id=None, event_types=None):
    """Returns (endpoint, secret). The secret signs every delivery; it is shown again only by rotation."""
    if (workspace_id is None) == (clinic_id is None):
        raise WebhookError("an endpoint belongs to exactly one workspace (--workspace ID --mode) or clinic "
                           "(--clinic ID)", "invalid_owner")
    if workspace_id is not None:
        try:
            get_workspace(db, workspace_id)
        except AccessError:
            raise WebhookError(f"no workspace {workspace_id}", "not_found") from None
        if mode not in MODES:
            raise WebhookError("a workspace endpoint's mode is live or test (--mode)", "invalid_mode", "mode")
    else:
        try:
            clinic = get_clinic(db, clinic_id)
        except AccessError:
            raise WebhookError(f"no clinic {clinic_id}", "not_found") from None
        if clinic.is_sandbox:
            raise WebhookError("a sandbox clinic's events go to its workspace's test endpoints: use "
                               "--workspace ID --mode test", "invalid_owner")
        if mode not in (None, "live"):
            raise WebhookError("a clinic's endpoint is always live; the mode is for workspace endpoints",
                               "invalid_mode", "mode")
        mode = "live"
    check_url(settings, url)
    event_types = check_types(event_types) if event_types is not None else None
    secret = signing.new_secret()
    endpoint_id = uuid.uuid4()
    endpoint = WebhookEndpoint(id=endpoint_id, workspace_id=workspace_id, clinic_id=clinic_id, mode=mode, url=url,
                               types=event_types, secret_sealed=settings.secret_box.seal(secret, endpoint_id))
    db.add(endpoint)
    db.flush()
    return endpoint, secret


def as_id(value, what="webhook endpoint"):
    """An id as a page may pass it (text from a URL or a form): a malformed one is simply not found."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise WebhookError(f"no {what} {value}", "not_found") from None


def get_endpoint(db, endpoint_id, lock=False, owner=None):
    """The endpoint; one of another owner's reads as unknown (no id reveals that it exists)."""
    endpoint_id = as_id(endpoint_id)
    endpoint = db.get(WebhookEndpoint, endpoint_id, with_for_update=lock)
    if endpoint is None or (owner is not None and not owner.owns(endpoint)):
        raise EndpointNotFound(endpoint_id)
    return endpoint


def status_of(endpoint):
    return "disabled" if endpoint.disabled_at else ("failing" if endpoint.failing_since else "enabled")


def describe(endpoint):
    return {
        "endpoint_id": str(endpoint.id),
        "owner": {"type": "clinic", "id": str(endpoint.clinic_id)} if endpoint.clinic_id
        else {"type": "workspace", "id": str(endpoint.workspace_id)},
        "mode": endpoint.mode,
        "url": endpoint.url,
        "types": endpoint.types,
        "status": status_of(endpoint),
        "failing_since": iso(endpoint.failing_since),
        "paused_until": iso(endpoint.paused_until),
        "disabled_at": iso(endpoint.disabled_at),
        "disabled_reason": endpoint.disabled_reason,
        "previous_secret_expires_at": iso(endpoint.previous_secret_expires_at),
        "created_at": iso(endpoint.created_at),
    }


def list_endpoints(db, workspace_id=None, clinic_id=None, mode=None):
    statement = select(WebhookEndpoint).order_by(WebhookEndpoint.created_at, WebhookEndpoint.id)
    if workspace_id is not None:
        statement = statement.where(WebhookEndpoint.workspace_id == workspace_id)
    if clinic_id is not None:
        statement = statement.where(WebhookEndpoint.clinic_id == clinic_id)
    if mode is not None:
        statement = statement.where(WebhookEndpoint.mode == mode)
    return list(db.scalars(statement))


def reveal_secret(db, settings, endpoint_id, owner=None):
    endpoint = get_endpoint(db, endpoint_id, owner=owner)
    try:
        return settings.secret_box.open(endpoint.secret_sealed, endpoint.id)
    except SecretBoxError as exc:
        raise WebhookError(str(exc), "secret_unavailable") from None


def rotate_secret(db, settings, endpoint_id, now=None, overlap_seconds=None, owner=None):
    """A new secret signs at once; the old one keeps signing too (two signatures) for the overlap
    (`webhooks.secret_overlap_seconds` unless chosen, 0 to 7 days; 0 drops it at once). A rotation during
    an overlap drops the oldest secret. Returns (endpoint, new secret)."""
    now = now or clock.now()
    if overlap_seconds is None:
        overlap_seconds = settings.secret_overlap_seconds
    if not 0 <= overlap_seconds <= MAX_OVERLAP_SECONDS:
        raise WebhookError(f"the overlap is 0 to {MAX_OVERLAP_SECONDS} seconds (7 days)", "invalid_overlap",
                           "overlap")
    endpoint = get_endpoint(db, endpoint_id, lock=True, owner=owner)
    secret = signing.new_secret()
    if overlap_seconds:
        endpoint.previous_secret_sealed = endpoint.secret_sealed
        endpoint.previous_secret_expires_at = now + datetime.timedelta(seconds=overlap_seconds)
    else:
        endpoint.previous_secret_sealed = endpoint.previous_secret_expires_at = None
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
                    raise WebhookError(f"endpoint {endpoint.id}: {exc}; nothing was resealed",
                                       "secret_unavailable") from None
                setattr(endpoint, column, box.seal(secret, endpoint.id))
                touched = True
        changed += touched
    db.flush()
    return changed


def disable(db, endpoint_id, now=None, owner=None):
    """Nothing is sent to it until enabled; its pending deliveries wait (given up after 3 days) and new
    events are not owed to it (recover them after enabling: `replays.recover`)."""
    endpoint = get_endpoint(db, endpoint_id, lock=True, owner=owner)
    if endpoint.disabled_at is None:
        endpoint.disabled_at = now or clock.now()
    endpoint.disabled_reason = MANUAL_DISABLE_REASON
    endpoint.disabled_manually = True
    db.flush()
    return endpoint


def enable(db, endpoint_id, now=None, owner=None):
    """Sending resumes at once: pending deliveries are due now (queued after commit)."""
    endpoint = get_endpoint(db, endpoint_id, lock=True, owner=owner)
    if endpoint.disabled_at is not None:
        delivery.enable(db, endpoint, now or clock.now())
        db.flush()
    return endpoint


def delete_endpoint(db, endpoint_id, owner=None):
    """The endpoint, its secrets and its deliveries (the foreign keys cascade). A delivery in flight finds
    its row gone and records nothing; a queued task for one finds nothing to claim."""
    db.delete(get_endpoint(db, endpoint_id, lock=True, owner=owner))
    db.flush()
