"""What the review queue needs from the context that owns a kind of item (registered with
`add_review_kind(config, kind)`): how an accepted submission reaches the chart, and how a pending one is
changed by its sender."""

import abc
import datetime
from dataclasses import dataclass


@dataclass(frozen=True)
class Revision:
    """What a pending submission holds once its sender's change is applied, validated as a new send."""

    action: str
    payload: dict
    client_reference: str | None
    origin_assistant_name: str | None


class ReviewKind(abc.ABC):
    resource_type: str
    model: type
    read_permission: str
    write_permission: str

    @abc.abstractmethod
    def create(self, db, submission, accepted_by):
        """Put a new item on the chart with id `submission.target_id`; return it."""

    @abc.abstractmethod
    def change(self, db, submission):
        """Apply an accepted update or retraction to `submission.target_id`; return the item."""

    @abc.abstractmethod
    def revise(self, scope, registry, submission, patch):
        """The `Revision` of the pending `submission` once `patch` (a JSON merge patch of what its sender
        sent) is merged in, validated exactly as a new send of this kind and action (another patient or
        another kind of send is refused); raise Problem invalid_request (400, with pointers) otherwise.
        `scope` is the sender's clinic scope."""

    def duplicate_of(self, db, submission):
        """The item already on the chart that this new item duplicates, or None."""
        return None

    def check_confirm(self, db, submission):
        """Raise ReviewError when a clinician may not confirm the submission now."""


def from_iso(value):
    return datetime.date.fromisoformat(value) if value else None


# {resource type: ReviewKind}, as the contexts registered them, kept in the registry.
REVIEW_KINDS = "review.kinds"


def add_review_kind(config, kind):
    """Register the context's `ReviewKind` (any context, in any order of inclusion)."""
    config.registry.setdefault(REVIEW_KINDS, {})[kind.resource_type] = kind


def review_kinds(registry):
    """{resource type: ReviewKind} of every kind registered."""
    return registry.setdefault(REVIEW_KINDS, {})
