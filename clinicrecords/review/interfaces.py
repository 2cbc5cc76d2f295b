"""What other contexts may know of the review context: its services, looked up by interface."""

from zope.interface import Interface

# What a context that owns a kind of item implements and registers (config.add_review_kind).
from clinicrecords.review.kinds import CHART_KINDS, ReviewKind, Revision, from_iso

__all__ = ["CHART_KINDS", "ISubmissionService", "ReviewKind", "Revision", "from_iso"]


class ISubmissionService(Interface):
    """The API side of the review queue for one clinic scope: submit (for the calling key), get_own, list_own,
    change and withdraw (a pending submission of its own). Built from the clinic scope."""
