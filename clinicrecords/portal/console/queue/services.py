"""The review queue in the clinic console. Every decision goes through the review context's `StaffReview`,
the same service the operator CLI and the sandbox test helpers run, so it emits the same events; the console
adds the staff member (as `decided_by_staff_id` / `reviewed_by_staff_id`) and a row in the portal's audit
trail. A submission id of another clinic finds nothing: the session is bound to this clinic's schema."""

from dataclasses import dataclass, field

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import key_label
from clinicrecords.clinics.services import open_clinic
from clinicrecords.patients import services as patients
from clinicrecords.identity.services import IAccountService
from clinicrecords.portal.console.queue import readable
from clinicrecords.portal.console.queue.interfaces import IReviewQueue
from clinicrecords.portal.console.refusals import form_error
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.review import services as review
from clinicrecords.review.interfaces import review_kinds
from clinicrecords.review.services import ReviewError, StaffReview

OWN_KEYS = "The clinic's own keys"  # the sender filter's choice for every key of the clinic's own


@dataclass
class QueueEntry:
    submission: object
    patient: object
    sender: str
    payload: list
    chart: list  # (item id, summary) of the patient's current items of this kind
    changes: list = field(default_factory=list)  # (field, now, proposed) for an update or retraction
    duplicate: str | None = None  # the summary of the chart item this new item likely duplicates


@dataclass(frozen=True)
class Decision:
    """A submission no longer pending, as the console tells a clinician who opens or decides it again."""

    submission_id: object
    kind: str
    patient_name: str
    outcome: str        # accepted, declined, withdrawn
    decided_at: object
    decided_by: str     # a staff member's email, or who else decided it, in words
    reason: str | None = None  # a decline's reason, as the sender reads it


@dataclass(frozen=True)
class Filters:
    kind: str = ""
    patient: str = ""
    sender: str = ""


@implementer(IReviewQueue)
class ReviewQueue:
    def __init__(self, db, registry, audit, accounts):
        self.db = db
        self.registry = registry
        self.audit = audit
        self.accounts = accounts
        self.kinds = review_kinds(registry)

    def _staff(self, clinic_id):
        return StaffReview(self.db, self.registry, open_clinic(self.db, clinic_id))

    def kind_names(self):
        return sorted(self.kinds)

    # Reading

    def pending(self, clinic_id, filters=Filters()):
        """The pending submissions, newest first, each beside the chart."""
        self._staff(clinic_id)
        submissions = review.pending_submissions(
            self.db, kind=filters.kind or None,
            sender_owner_id=_uuid_or_none(filters.sender) if filters.sender else review.ANY_SENDER,
            patient_ids=patients.patient_ids_matching(filters.patient) if filters.patient else None)
        return [self._entry(submission, patient) for submission, patient in self._with_patients(submissions)]

    def _with_patients(self, rows):
        """(row, its patient) of the rows whose patient exists."""
        found = patients.patients_by_id(self.db, (row.patient_id for row in rows))
        return [(row, found[row.patient_id]) for row in rows if row.patient_id in found]

    def senders(self, clinic_id):
        """(sender owner id, label) of everyone with a pending submission, for the filter."""
        self._staff(clinic_id)
        rows = review.pending_senders(self.db)
        return sorted(((str(row.sender_owner_id),
                        access.get_workspace(self.db, row.workspace_id).name if row.workspace_id else OWN_KEYS)
                       for row in rows), key=lambda pair: pair[1])

    def entry(self, clinic_id, submission_id):
        """One pending submission beside the chart, or None (absent, decided, or another clinic's)."""
        self._staff(clinic_id)
        submission = review.find_submission(self.db, submission_id)
        if submission is None or submission.review_status != "pending":
            return None
        return self._entry(submission, patients.find_patient(self.db, submission.patient_id))

    def decision(self, clinic_id, submission_id):
        """A decided submission of this clinic (who decided it and when), or None (absent, pending, or another
        clinic's)."""
        self._staff(clinic_id)
        submission = review.find_submission(self.db, submission_id)
        if submission is None or submission.review_status == "pending":
            return None
        patient = patients.find_patient(self.db, submission.patient_id)
        return Decision(submission.id, submission.resource_type,
                        f"{patient.given_name} {patient.family_name}" if patient else "a patient",
                        _outcome(submission), submission.decided_at, self._decider(submission),
                        submission.decision_reason if _outcome(submission) == "declined" else None)

    def _decider(self, submission):
        if submission.decided_by_staff_id is not None:
            account = self.accounts.get(submission.decided_by_staff_id)
            return account.email if account else "a former staff member"
        if submission.accepted_automatically:
            return "automatic acceptance"
        if _outcome(submission) == "withdrawn":
            return f"its sender, {self._sender(submission)}"
        return "an operator of the service"

    def _sender(self, submission):
        """Who sent it, as the page names them: the organization, or the clinic's own key by its name (its
        masked id when it has none)."""
        if submission.workspace_id:
            return access.get_workspace(self.db, submission.workspace_id).name
        key = next((key for key in access.list_keys(self.db, clinic_id=submission.sender_owner_id)
                    if key.id == submission.api_key_id), None)
        return f"the clinic's own key “{key_label(key)}”" if key is not None else "the clinic's own key"

    def _entry(self, submission, patient):
        kind = self.kinds[submission.resource_type]
        chart = self.db.scalars(select(kind.model).where(kind.model.patient_id == submission.patient_id)
                                .order_by(kind.model.created_at)).all()
        entry = QueueEntry(submission, patient, self._sender(submission),
                           readable.payload_rows(submission.payload),
                           [(item.id, readable.item_summary(kind, item)) for item in chart])
        if submission.action in ("update", "retract"):
            target = self.db.get(kind.model, submission.target_id)
            entry.changes = readable.change_rows(submission.payload, target, kind.renames)
        else:
            duplicate = kind.duplicate_of(self.db, submission)
            if duplicate is not None:
                entry.duplicate = readable.item_summary(kind, duplicate)
        return entry

    def awaiting_review(self, clinic_id):
        """(kind, item, patient) accepted automatically and not yet reviewed, newest first."""
        self._staff(clinic_id)
        found = []
        for name in self.kind_names():
            kind = self.kinds[name]
            items = self.db.scalars(select(kind.model).where(kind.model.accepted_by == "automatic",
                                                             kind.model.reviewed_at.is_(None))).all()
            found.extend((name, item, patient, readable.item_summary(kind, item))
                         for item, patient in self._with_patients(items))
        return sorted(found, key=lambda row: row[1].created_at, reverse=True)

    # Deciding

    def accept(self, clinic_id, submission_id, account_id, seen):
        """`seen`: the submission's content as the page showed it (its content hash): a change its sender made
        since is refused, so the clinician accepts only what they read."""
        try:
            submission = self._staff(clinic_id).accept(submission_id, staff_id=account_id, seen=seen)
        except ReviewError as exc:
            raise form_error("decision", exc) from None
        self._record("submission.accepted", clinic_id, account_id, submission)
        return submission

    def decline(self, clinic_id, submission_id, reason, account_id):
        reason = (reason or "").strip()
        if not reason:
            raise FormError("reason", "Enter the reason for declining: the sender reads it")
        if len(reason) > 2000:
            raise FormError("reason", "Enter a reason of at most 2000 characters")
        try:
            submission = self._staff(clinic_id).decline(submission_id, reason, staff_id=account_id)
        except ReviewError as exc:
            raise form_error("reason", exc) from None
        self._record("submission.declined", clinic_id, account_id, submission)
        return submission

    def mark_reviewed(self, clinic_id, kind, item_id, account_id):
        try:
            item = self._staff(clinic_id).review_item(kind, item_id, staff_id=account_id)
        except ReviewError as exc:
            raise form_error("item", exc) from None
        self.audit.record("item.reviewed", account_id=account_id, clinic_id=clinic_id, target=str(item.id),
                          kind=kind)
        return item

    def _record(self, action, clinic_id, account_id, submission):
        self.audit.record(action, account_id=account_id, clinic_id=clinic_id, target=str(submission.id),
                          kind=submission.resource_type, review_status=submission.review_status)


def _outcome(submission):
    """accepted, declined, or withdrawn (the sender's own withdrawal is recorded as a rejection "withdrawn")."""
    if submission.review_status == "confirmed":
        return "accepted"
    withdrawn = submission.decided_by_staff_id is None and submission.decision_reason == "withdrawn"
    return "withdrawn" if withdrawn else "declined"


def _uuid_or_none(text):
    import uuid

    try:
        return uuid.UUID(text)
    except ValueError:
        return None


def review_queue_factory(context, request):
    return ReviewQueue(request.db, request.registry, request.find_service(IPortalAudit),
                       request.find_service(IAccountService))
