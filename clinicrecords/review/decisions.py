"""Moving a submission out of pending, shared by automatic acceptance, clinicians and a sender's withdrawal:
the decision, the chart it reaches (through the kind's `ReviewKind`) and the `submission.decided` event."""

from clinicrecords.clock import now
from clinicrecords.errors import InvalidInput
from clinicrecords.events.services import emit
from clinicrecords.review.kinds import review_kinds
from clinicrecords.review.models import Submission

DECIDED_EVENT = "submission.decided"


class ReviewError(InvalidInput):
    """A staff decision that cannot be made; nothing was written."""


class Decisions:
    """Moving a submission out of pending: shared by automatic acceptance and clinicians."""

    def __init__(self, db, registry, clinic_id):
        self.db = db
        self.kinds = review_kinds(registry)
        self.clinic_id = clinic_id

    def kind(self, resource_type):
        return self.kinds[resource_type]

    def confirm(self, submission, accepted_by, staff_id=None):
        kind = self.kind(submission.resource_type)
        if submission.action == "create" or submission.action == "no_known_allergies":
            duplicate = kind.duplicate_of(self.db, submission)
            if duplicate is not None:
                # A duplicate is never added to the chart: the decision points at the item already there.
                record = duplicate
                submission.decision_reason = submission.decision_reason or "Duplicate of an item on the chart."
            else:
                record = kind.create(self.db, submission, accepted_by)
        else:
            record = kind.change(self.db, submission)
        submission.review_status = "confirmed"
        submission.accepted_automatically = accepted_by == "automatic"
        submission.result_record_id = record.id
        submission.decided_by_staff_id = staff_id
        self._decided(submission)
        return submission

    def reject(self, submission, reason=None, staff_id=None):
        submission.review_status = "rejected"
        submission.decision_reason = reason
        submission.decided_by_staff_id = staff_id
        self._decided(submission)
        return submission

    def _decided(self, submission):
        submission.decided_at = now()
        self.db.flush()
        emit(self.db, self.clinic_id, DECIDED_EVENT, submission.id,
             {"submission_id": str(submission.id), "resource_type": submission.resource_type,
              "review_status": submission.review_status})


def locked_submission(db, submission_id):
    """The submission with its row locked until the transaction ends (SELECT ... FOR UPDATE), re-read as last
    committed; None when absent. Every move out of pending and every change of a pending submission takes it
    first, so they run one after the other."""
    return db.get(Submission, submission_id, with_for_update=True, populate_existing=True)
