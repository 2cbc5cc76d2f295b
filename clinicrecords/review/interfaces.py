"""What other contexts may know of the review context: its services, looked up by interface."""

from zope.interface import Interface

# What a context that owns a kind of item implements and registers (add_review_kind), and the kinds registered.
from clinicrecords.review.kinds import CHART_KINDS, ReviewKind, Revision, add_review_kind, from_iso, review_kinds

__all__ = ["CHART_KINDS", "ISubmissionService", "ReviewKind", "Revision", "add_review_kind", "from_iso",
           "review_kinds"]


class ISubmissionService(Interface):
    """The API side of the review queue for one clinic scope: what the calling key (the scope's identity) sends
    to the scope's clinic and may follow. Built from the clinic scope."""

    def submit(*, resource_type, action, patient_id, target_id, payload, client_reference=None,
               origin_assistant_name=None):
        """A new submission (or, for a client_reference already used with the same content, the existing one;
        with other content 409 client_reference_conflict). Automatic acceptance may decide it at once."""

    def get_own(submission_id):
        """The caller's own submission, or None (absent, another sender's, or a restricted patient's)."""

    def list_own(kinds, query, cursors):
        """A page of the caller's own submissions of these kinds (`review_status`, `resource_type`)."""

    def change(submission, patch):
        """The sender changes its pending submission with a JSON merge patch of what it sent; it stays pending
        (409 submission_not_pending once decided)."""

    def withdraw(submission):
        """The sender takes back a pending submission: it is rejected with the reason `withdrawn`."""
