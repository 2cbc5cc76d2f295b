import uuid

from clinicrecords.portal.queue.interfaces import IReviewQueue
from clinicrecords.portal.staff.resources import ClinicPart


class QueuePage(ClinicPart):
    """/clinics/{id}/queue/{submission_id}: pending submissions of this clinic only."""

    def __getitem__(self, name):
        if name == "reviews":
            return ReviewsPage(self, name)
        try:
            submission_id = uuid.UUID(name)
        except ValueError:
            raise KeyError(name) from None
        entry = self.request.find_service(IReviewQueue).entry(self.clinic.id, submission_id)
        if entry is None:
            raise KeyError(name)
        return PendingSubmission(self, name, entry)


class PendingSubmission(ClinicPart):
    def __init__(self, parent, name, entry):
        super().__init__(parent, name)
        self.entry = entry


class ReviewsPage(ClinicPart):
    """/clinics/{id}/queue/reviews: items accepted automatically, to be marked reviewed."""
