"""What the review queue needs from the context that owns a kind of item (registered with
`add_review_kind(config, kind)`): how an accepted submission reaches the chart, and how a pending one is
changed by its sender."""

import abc
import datetime
from dataclasses import dataclass

from pyramid.exceptions import ConfigurationError

from clinicrecords.events.services import permit_submission_kind


# The chart kinds the review queue holds, as the API names them (`resource_type`): what a submission list
# filters by, what `item review --kind` and `auto-accept set --kinds` take, and what the document lists. The
# context that owns each registers one `ReviewKind` for it (`add_review_kind`): the queue refuses a
# kind not named here and a name no kind was registered for.
CHART_KINDS = ("allergy", "condition", "medication_statement", "referral")


@dataclass(frozen=True)
class Revision:
    """What a pending submission holds once its sender's change is applied, validated as a new send."""

    action: str
    payload: dict
    client_reference: str | None
    origin_assistant_name: str | None


class ReviewKind(abc.ABC):
    resource_type: str  # one of CHART_KINDS
    model: type
    read_permission: str
    write_permission: str  # also what its `submission.decided` event needs (clinicrecords.events)
    # A coded field the payload holds as one object and the chart in two columns: {field: {part: column}}.
    renames: dict | None = None
    # The columns that name an item at a glance (the clinic console); none: every column of its own.
    summary_fields: tuple = ()

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
    """Register the context's `ReviewKind` (any context, in any order of inclusion): one of `CHART_KINDS`."""
    if kind.resource_type not in CHART_KINDS:
        raise ConfigurationError(f"{kind.resource_type!r} is not a chart kind (clinicrecords.review.kinds)")
    review_kinds(config.registry)[kind.resource_type] = kind
    # The event announcing a decision is seen with the permission the kind is sent with.
    permit_submission_kind(kind.resource_type, kind.write_permission)


def check_every_kind_registered(registry):
    missing = [name for name in CHART_KINDS if name not in review_kinds(registry)]
    if missing:
        raise ConfigurationError(f"no review kind registered for {', '.join(missing)}")


def review_kinds(registry):
    """{resource type: ReviewKind} of every kind registered."""
    return registry.setdefault(REVIEW_KINDS, {})
