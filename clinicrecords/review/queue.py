"""What the clinic console's queue reads of the review queue (the portal)."""

from dataclasses import dataclass

from sqlalchemy import func, select

from clinicrecords.review.models import Submission

ANY_SENDER = object()


def pending_submissions(db, kind=None, sender_owner_id=ANY_SENDER, patient_ids=None):
    """The pending submissions, newest first; narrowed to a kind, a sender (None: no sender) and the patients
    a select of ids (`patients.services.patient_ids_matching`) names."""
    statement = (select(Submission).where(Submission.review_status == "pending")
                 .order_by(Submission.submitted_at.desc(), Submission.id))
    if kind:
        statement = statement.where(Submission.resource_type == kind)
    if sender_owner_id is not ANY_SENDER:
        statement = statement.where(Submission.sender_owner_id == sender_owner_id)
    if patient_ids is not None:
        statement = statement.where(Submission.patient_id.in_(patient_ids))
    return db.scalars(statement).all()


def pending_senders(db):
    """(sender_owner_id, workspace_id) of everyone with a pending submission."""
    return db.execute(select(Submission.sender_owner_id, Submission.workspace_id).distinct()
                      .where(Submission.review_status == "pending")).all()


@dataclass(frozen=True)
class QueueSummary:
    """How many submissions wait for a clinician's decision, and since when the oldest waits (None: none)."""

    waiting: int
    oldest_submitted_at: object


def queue_summary(db):
    """The clinic's (`db` bound to it) waiting submissions in numbers only: never a patient or an item."""
    waiting, oldest = db.execute(select(func.count(), func.min(Submission.submitted_at))
                                 .where(Submission.review_status == "pending")).one()
    return QueueSummary(waiting, oldest)


def find_submission(db, submission_id):
    return db.get(Submission, submission_id)


def submissions_by_id(db, submission_ids):
    """{id: submission} of those of `submission_ids` in this clinic, in one statement (a page of the console's
    activity names each one's patient)."""
    ids = set(submission_ids)
    return {row.id: row for row in db.scalars(select(Submission).where(Submission.id.in_(ids)))} if ids else {}
