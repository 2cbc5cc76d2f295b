"""The review queue as other contexts use it: API callers send (`submit`), follow and withdraw their own
submissions (`SubmissionService`, built from the clinic scope); what clinic staff do, automatic acceptance and
the console's queue live in modules of their own (`staff`, `auto_accept`, `decisions`, `queue`) and are named
here for the contexts that call them.
"""

import collections
import uuid

from sqlalchemy import String, Uuid, bindparam, insert, select
from sqlalchemy.orm import make_transient_to_detached
from zope.interface import implementer

from clinicrecords.api.canonical import canonical_hash
from clinicrecords.api.pagination import keyset_page
from clinicrecords.api.problems import Problem
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.db import locks
from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.patients.services import visible
from clinicrecords.review.auto_accept import ANY_ENABLED, AutoAcceptance, asked, pause_settings
from clinicrecords.review.decisions import Decisions, ReviewError, locked_submission
from clinicrecords.review.interfaces import ISubmissionService, review_kinds
from clinicrecords.review.models import Submission
from clinicrecords.review.queue import (ANY_SENDER, QueueSummary, find_submission, pending_senders,
                                       pending_submissions, queue_summary, submissions_by_id)
from clinicrecords.review.staff import StaffReview, accept_as_staff, decline_as_staff, review_item_as_staff

# What other contexts call (the clinic console, the test helpers, clinical's kinds and seed).
__all__ = ["ANY_SENDER", "ReviewError", "StaffReview", "SubmissionService", "accept_as_staff",
           "add_pending_submission", "content_hash", "decline_as_staff", "find_submission", "pause_settings",
           "pending_senders", "pending_submissions", "queue_summary", "QueueSummary", "review_item_as_staff",
           "submission_service_factory", "submissions_by_id"]


def content_hash(resource_type, action, target_id, payload, origin_assistant_name):
    """The identity of what was sent, for the client_reference rule: same reference, same content."""
    return canonical_hash({"resource_type": resource_type, "action": action, "target_id": target_id,
                           "payload": payload, "origin_assistant_name": origin_assistant_name})


def add_pending_submission(db, *, submission_id, patient_id, resource_type, target_id, payload, client_reference,
                           origin_assistant_name, api_key_id, workspace_id, sender_owner_id):
    """A pending API submission of a new item written as it stands (sandbox seeds: fixed ids, no sender key)."""
    db.add(Submission(
        id=submission_id, patient_id=patient_id, resource_type=resource_type, action="create",
        review_status="pending", target_id=target_id, accepted_automatically=False, source="api",
        client_reference=client_reference, origin_assistant_name=origin_assistant_name, payload=payload,
        content_hash=content_hash(resource_type, "create", None, payload, origin_assistant_name),
        api_key_id=api_key_id, workspace_id=workspace_id, sender_owner_id=sender_owner_id))


_BY_REFERENCE = select(Submission).where(Submission.sender_owner_id == bindparam("owner_id", type_=Uuid()),
                                         Submission.client_reference == bindparam("client_reference", type_=String()))


_SENT_COLUMNS = (
    "id", "patient_id", "resource_type", "action", "review_status", "target_id", "accepted_automatically", "source",
    "decided_at", "decision_reason", "decided_by_staff_id", "result_record_id", "client_reference",
    "origin_assistant_name", "payload", "content_hash", "api_key_id", "workspace_id", "sender_owner_id")
# The INSERT also answers automatic acceptance's first question (is any setting on for this sender and kind?):
# one round trip for both. The question reads the settings only, never the row being written.
_INSERT_SUBMISSION = Prebuilt(insert(Submission.__table__).returning(
    Submission.__table__.c.submitted_at, ANY_ENABLED.scalar_subquery().label("auto_accept_setting_id")),
    column_keys=_SENT_COLUMNS, json=("payload",))
# What a send answers when nothing decides it at once (the common case): the row as written, no entity.
SentSubmission = collections.namedtuple("SentSubmission", _SENT_COLUMNS + ("submitted_at",))


@implementer(ISubmissionService)
@implementer(ISubmissionService)
class SubmissionService:
    """The API side: what the calling key (the scope's identity) sends to the scope's clinic and may follow.
    `registry` holds the review kinds and the automatic-acceptance settings."""

    def __init__(self, scope, registry):
        self.scope = scope
        self.db = scope.db
        self.clinic = scope.clinic
        self.identity = scope.identity
        self.registry = registry

    # Sending

    def submit(self, *, resource_type, action, patient_id, target_id, payload,
               client_reference=None, origin_assistant_name=None):
        """A new submission (or, for a client_reference already used with the same content, the existing
        one). Automatic acceptance may decide it at once; the caller cannot tell but by reading it."""
        identity = self.identity
        # A new item's target id is minted per send, so only changes name their target in the content.
        changed = str(target_id) if action in ("update", "retract") else None
        digest = content_hash(resource_type, action, changed, payload, origin_assistant_name)
        if client_reference is not None:
            existing = self._by_reference(identity.owner_id, client_reference)
            if existing is not None:
                if existing.content_hash != digest:
                    raise Problem("client_reference_conflict", "This client_reference was sent before with "
                                  "different content; use a new reference for new content.",
                                  errors=[{"pointer": "/client_reference",
                                           "message": "Already used for different content."}])
                return existing
        values = dict(
            id=uuid.uuid4(), patient_id=patient_id, resource_type=resource_type, action=action,
            review_status="pending", target_id=target_id, accepted_automatically=False, source="api",
            decided_at=None, decision_reason=None, decided_by_staff_id=None, result_record_id=None,
            client_reference=client_reference, origin_assistant_name=origin_assistant_name, payload=payload,
            content_hash=digest, api_key_id=identity.id, workspace_id=identity.workspace_id,
            sender_owner_id=identity.owner_id,
        )
        # One prebuilt INSERT that reads back submitted_at, instead of the unit of work's flush of a new object.
        written = _INSERT_SUBMISSION.first(self.db, **values, **asked(identity, resource_type))
        values["submitted_at"] = written.submitted_at
        acceptance = AutoAcceptance(self.db, self.registry, self.clinic)
        setting = acceptance.setting_in_force(action, resource_type, identity,
                                              any_enabled=written.auto_accept_setting_id is not None)
        if setting is None:
            return SentSubmission(**values)
        # A decision updates the submission through the ORM: it joins the session as if loaded.
        submission = Submission(**values)
        make_transient_to_detached(submission)
        self.db.add(submission)
        if acceptance.consider(submission, setting):
            self.db.refresh(submission)
        return submission

    def _by_reference(self, owner_id, client_reference):
        # Two sends with one reference at once: the second waits for the first, then sees it.
        locks.hold(self.db, "client_reference", owner_id, client_reference)
        return self.db.scalar(_BY_REFERENCE, {"owner_id": owner_id, "client_reference": client_reference})

    # Following

    def _own(self, kinds):
        return visible(select(Submission), Submission.patient_id).where(
            Submission.sender_owner_id == self.identity.owner_id, Submission.resource_type.in_(kinds))

    def get_own(self, submission_id):
        """The caller's own submission, or None (absent, another sender's, or a restricted patient's)."""
        return self.db.scalar(self._own(list(review_kinds(self.registry))).where(Submission.id == submission_id))

    def list_own(self, kinds, query, cursors):
        statement = self._own(kinds)
        if query.get("review_status"):
            statement = statement.where(Submission.review_status == query["review_status"])
        if query.get("resource_type"):
            statement = statement.where(Submission.resource_type == query["resource_type"])
        return keyset_page(cursors, self.db, statement, (Submission.submitted_at, Submission.id), query)

    def _own_pending(self, submission):
        """The sender's submission locked for the rest of the transaction, as last committed: a clinician's
        decision committed meanwhile is seen (and one still running is waited for), so what follows acts on
        a submission that is really pending; else 409 submission_not_pending."""
        submission = locked_submission(self.db, submission.id)
        if submission is None or submission.review_status != "pending":
            raise Problem("submission_not_pending", "This submission was already decided (or accepted "
                          "automatically) and cannot be changed or withdrawn.")
        return submission

    def change(self, submission, patch):
        """The sender changes its pending submission: `patch` (a JSON merge patch of what it sent) is merged
        in and checked as a new send of the same kind (the kind's `revise`), with the client_reference rule:
        a reference naming another of the sender's submissions is 409 client_reference_conflict. It stays
        pending (a change is never accepted automatically) with its id, target and submitted_at."""
        submission = self._own_pending(submission)
        kind = review_kinds(self.registry)[submission.resource_type]
        revision = kind.revise(self.scope, self.registry, submission, patch)
        reference = revision.client_reference
        if reference is not None and reference != submission.client_reference:
            taken = self._by_reference(submission.sender_owner_id, reference)
            if taken is not None:
                raise Problem("client_reference_conflict", "This client_reference names another of your "
                              "submissions; use a new reference.",
                              errors=[{"pointer": "/client_reference", "message": "Already used."}])
        changed = str(submission.target_id) if revision.action in ("update", "retract") else None
        submission.action = revision.action
        submission.payload = revision.payload
        submission.client_reference = reference
        submission.origin_assistant_name = revision.origin_assistant_name
        submission.content_hash = content_hash(submission.resource_type, revision.action, changed, revision.payload,
                                               revision.origin_assistant_name)
        self.db.flush()
        return submission

    def withdraw(self, submission):
        """The sender takes back a pending submission: it is rejected with the reason `withdrawn`."""
        submission = self._own_pending(submission)
        Decisions(self.db, self.registry, self.clinic.id).reject(submission, reason="withdrawn")
        self.db.refresh(submission)
        return submission


def submission_service_factory(context, request):
    return SubmissionService(clinic_scope(context), request.registry)
