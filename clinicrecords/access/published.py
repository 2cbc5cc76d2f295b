"""The moments of a connection's life access publishes (`clinicrecords.publishing`): facts only, for whoever
listens (the notifications). Re-exported by `access.interfaces`."""

import datetime
import uuid
from dataclasses import dataclass

APPROVED, NARROWED, CHANGED, REVOKED = "approved", "narrowed", "changed", "revoked"


@dataclass(frozen=True)
class ConnectionRequested:
    """An organization asked a clinic for a connection (published by whoever keeps the requests: the portal's
    connection requests)."""

    workspace_id: uuid.UUID
    clinic_id: uuid.UUID
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class ConnectionChanged:
    """A connection was made (`approved`: new, or made again after it ended), kept with fewer or the same
    permissions or a new expiry (`narrowed`), given more (`changed`, an operator's grant) or `revoked`.
    `scopes`: what it grants now (empty once revoked); `expires_at`: when it ends by itself (None: never)."""

    workspace_id: uuid.UUID
    clinic_id: uuid.UUID
    change: str
    scopes: tuple[str, ...]
    expires_at: datetime.datetime | None = None
