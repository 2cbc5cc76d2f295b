"""The moments of onboarding other contexts may listen to (`clinicrecords.publishing`): facts only.
Re-exported by `onboarding.interfaces`."""

import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class ProfileReviewed:
    """An operator's review of a workspace's business profile ended: approved, or refused (its reason is on the
    profile page)."""

    workspace_id: uuid.UUID
    approved: bool


@dataclass(frozen=True)
class DomainLapsed:
    """A verified domain's TXT record was missing at enough daily checks in a row: the workspace is no longer
    verified. `domain`: its ASCII form."""

    workspace_id: uuid.UUID
    domain: str
