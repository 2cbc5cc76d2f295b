"""What the review queue needs from the context that owns a kind of item (registered with
`config.add_review_kind(kind)`): how an accepted submission reaches the chart."""

import abc
import datetime


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

    def duplicate_of(self, db, submission):
        """The item already on the chart that this new item duplicates, or None."""
        return None

    def check_confirm(self, db, submission):
        """Raise ReviewError when a clinician may not confirm the submission now."""


def from_iso(value):
    return datetime.date.fromisoformat(value) if value else None
