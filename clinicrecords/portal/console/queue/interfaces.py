from zope.interface import Interface


class IReviewQueue(Interface):
    """A clinic's review queue as its clinicians work it: pending submissions beside the chart, decisions."""

    def kind_names():
        """The review kinds' names, sorted (the kind filter's choices)."""

    def pending(clinic_id, filters=None):
        """The pending submissions, newest first, each beside the chart (`Filters`: kind, patient, sender)."""

    def senders(clinic_id):
        """(sender owner id, label) of everyone with a pending submission, for the filter."""

    def entry(clinic_id, submission_id):
        """One pending submission beside the chart, or None (absent, decided, or another clinic's)."""

    def decision(clinic_id, submission_id):
        """A decided submission of this clinic (who decided it and when), or None."""

    def awaiting_review(clinic_id):
        """(kind, item, patient) accepted automatically and not yet reviewed, newest first."""

    def accept(clinic_id, submission_id, account_id, seen):
        """Accept what the clinician read (`seen`: the content hash the page showed; a change since is
        refused)."""

    def decline(clinic_id, submission_id, reason, account_id):
        """Decline with a reason."""

    def mark_reviewed(clinic_id, kind, item_id, account_id):
        """A clinician has looked at an item accepted automatically."""
