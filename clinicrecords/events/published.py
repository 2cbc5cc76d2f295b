"""The moments of a webhook endpoint other contexts may listen to (`clinicrecords.publishing`): facts only,
never its URL's path or query (they may carry a receiver's token) nor its secret. Re-exported by
`events.interfaces`."""

import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class EndpointTrouble:
    endpoint_id: uuid.UUID
    workspace_id: uuid.UUID | None  # the owner: a workspace's endpoint (test or live) ...
    clinic_id: uuid.UUID | None     # ... or a clinic's own
    mode: str
    host: str                       # the receiver's host name, as its URL names it
    error: str                      # the failed attempt's reason, in words (events/failures.py)


@dataclass(frozen=True)
class EndpointFailing(EndpointTrouble):
    """The endpoint started failing: an attempt failed after a success (or before any), so it is paused and
    retried with backoff. Told once per failing streak, never for each failed attempt."""


@dataclass(frozen=True)
class EndpointDisabled(EndpointTrouble):
    """The endpoint failed continuously for `webhooks.disable_after_seconds` and was disabled: nothing more is
    sent until its owner enables it or a test event succeeds."""
