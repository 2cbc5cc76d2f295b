import uuid

from clinicrecords.portal.console.queue.interfaces import IReviewQueue
from clinicrecords.portal.console.resources import ClinicPart


class PendingSubmission(ClinicPart):
    def __init__(self, parent, name, entry):
        super().__init__(parent, name)
        self.entry = entry


class DecidedSubmission(ClinicPart):
    """A submission of this clinic already decided: opening or deciding it again says who decided it and when."""

    def __init__(self, parent, name, decision):
        super().__init__(parent, name)
        self.decision = decision


class ReviewsPage(ClinicPart):
    """/clinics/{id}/queue/reviews: items accepted automatically, to be marked reviewed."""


class QueuePage(ClinicPart):
    """/clinics/{id}/queue/{submission_id}: submissions of this clinic only, pending or already decided."""

    # Patient data: opens only for staff with a second factor (portal.accounts.factors.required).
    second_factor_required = "patient_data"

    children = {"reviews": ReviewsPage}
    service, item_resource, item_parameter = IReviewQueue, (PendingSubmission, DecidedSubmission), "submission_id"

    def __getitem__(self, name):
        if name in self.children:
            return self.children[name](self, name)
        try:
            submission_id = uuid.UUID(name)
        except ValueError:
            raise KeyError(name) from None
        service = self.request.find_service(self.service)
        entry = service.entry(self.clinic.id, submission_id)
        if entry is not None:
            return PendingSubmission(self, name, entry)
        decision = service.decision(self.clinic.id, submission_id)
        if decision is None:
            raise KeyError(name)
        return DecidedSubmission(self, name, decision)
