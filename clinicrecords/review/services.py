"""The review queue: submissions from outside software, automatic acceptance, and clinicians' decisions.

API callers send (`submit`), follow and withdraw their own submissions; clinic staff (operator CLI, the
clinic's own screens) accept, decline, review automatically accepted items and switch automatic acceptance.
"""

import collections
import datetime
import hashlib
import json
import uuid

from sqlalchemy import String, Uuid, bindparam, func, insert, select
from sqlalchemy.orm import make_transient_to_detached
from zope.interface import implementer

from clinicrecords.access.services import current_connection_at, key_by_key_id, workspace_of_key
from clinicrecords.api.pagination import keyset_page
from clinicrecords.api.problems import Problem
from clinicrecords.api.render import iso
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clock import now
from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.errors import InvalidInput
from clinicrecords.events.services import emit
from clinicrecords.patients.services import visible
from clinicrecords.review.interfaces import ISubmissionService, review_kinds
from clinicrecords.review.models import AutoAcceptPause, AutoAcceptSetting, Submission
from clinicrecords.review.representations import staff_submission_json
from clinicrecords.settings import app_settings

# The kinds of chart item clinicians review and switch automatic acceptance for.
KINDS = ("allergy", "condition", "medication_statement", "referral")
DECIDED_EVENT = "submission.decided"
NEVER_AUTOMATIC_ACTIONS = ("update", "retract", "no_known_allergies")


class ReviewError(InvalidInput):
    """A staff decision that cannot be made; nothing was written."""


def content_hash(resource_type, action, target_id, payload, origin_assistant_name):
    """The identity of what was sent, for the client_reference rule: same reference, same content."""
    canonical = json.dumps({"resource_type": resource_type, "action": action, "target_id": target_id,
                            "payload": payload, "origin_assistant_name": origin_assistant_name},
                           sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def add_pending_submission(db, *, submission_id, patient_id, resource_type, target_id, payload, client_reference,
                           origin_assistant_name, api_key_id, workspace_id, sender_owner_id):
    """A pending API submission of a new item written as it stands (sandbox seeds: fixed ids, no sender key)."""
    db.add(Submission(
        id=submission_id, patient_id=patient_id, resource_type=resource_type, action="create",
        review_status="pending", target_id=target_id, accepted_automatically=False, source="api",
        client_reference=client_reference, origin_assistant_name=origin_assistant_name, payload=payload,
        content_hash=content_hash(resource_type, "create", None, payload, origin_assistant_name),
        api_key_id=api_key_id, workspace_id=workspace_id, sender_owner_id=sender_owner_id))


def pause_settings(settings):
    """(threshold, window minutes): automatic acceptance pauses once a sender had `threshold` items accepted
    automatically in the clinic within the window (settings `review.auto_accept_pause_threshold`,
    `review.auto_accept_pause_window_minutes`: a ReviewSettings)."""
    return settings.auto_accept_pause_threshold, settings.auto_accept_pause_window_minutes


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


_REFERENCE_LOCK = select(func.pg_advisory_xact_lock(func.hashtextextended(bindparam("lock_name", type_=String()), 0)))
_BY_REFERENCE = select(Submission).where(Submission.sender_owner_id == bindparam("owner_id", type_=Uuid()),
                                         Submission.client_reference == bindparam("client_reference", type_=String()))


_SENT_COLUMNS = (
    "id", "patient_id", "resource_type", "action", "review_status", "target_id", "accepted_automatically", "source",
    "decided_at", "decision_reason", "decided_by_staff_id", "result_record_id", "client_reference",
    "origin_assistant_name", "payload", "content_hash", "api_key_id", "workspace_id", "sender_owner_id")
_INSERT_SUBMISSION = Prebuilt(insert(Submission.__table__).returning(Submission.__table__.c.submitted_at),
                              column_keys=_SENT_COLUMNS, json=("payload",))
# What a send answers when nothing decides it at once (the common case): the row as written, no entity.
SentSubmission = collections.namedtuple("SentSubmission", _SENT_COLUMNS + ("submitted_at",))


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
        values["submitted_at"] = _INSERT_SUBMISSION.first(self.db, **values).submitted_at
        acceptance = AutoAcceptance(self.db, self.registry, self.clinic)
        setting = acceptance.setting_in_force(action, resource_type, identity)
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
        self.db.execute(_REFERENCE_LOCK, {"lock_name": f"client_reference:{owner_id}:{client_reference}"})
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


def connected_at_now(db, clinic, workspace_id):
    """The `connected_at` of the workspace's connection to the clinic in force (None on a sandbox, which has
    no connection: its workspace's test keys reach it)."""
    if clinic.is_sandbox:
        return None
    return current_connection_at(db, workspace_id, clinic.id)


# Built once: every send asks. A key without a workspace binds workspace_id NULL, which matches no row.
_ENABLED = (
    ((AutoAcceptSetting.sender_type == "key") & (AutoAcceptSetting.sender_id == bindparam("key_id", type_=Uuid())))
    | ((AutoAcceptSetting.sender_type == "workspace")
       & (AutoAcceptSetting.sender_id == bindparam("workspace_id", type_=Uuid()))),
    AutoAcceptSetting.kind == bindparam("kind", type_=String()), AutoAcceptSetting.enabled.is_(True))
_ENABLED_SETTINGS = select(AutoAcceptSetting).where(*_ENABLED)
# Off is the common case: a cheap read settles it without loading a setting as an entity.
_ANY_ENABLED = Prebuilt(select(AutoAcceptSetting.id).where(*_ENABLED).limit(1))


class AutoAcceptance:
    """Per clinic, per sender (a key, or a workspace's current connection) and kind; off by default."""

    def __init__(self, db, registry, clinic):
        self.db = db
        self.registry = registry
        self.clinic = clinic

    def _connected_at(self, workspace_id):
        return connected_at_now(self.db, self.clinic, workspace_id)

    def setting_for(self, identity, kind):
        """The setting that switches automatic acceptance on for this caller and kind, or None. The key's own
        setting wins over its workspace's; both are read in one statement (every send asks)."""
        asked = {"key_id": identity.id, "workspace_id": identity.workspace_id, "kind": kind}
        if _ANY_ENABLED.first(self.db, **asked) is None:
            return None
        found = {setting.sender_type: setting for setting in self.db.scalars(_ENABLED_SETTINGS, asked)}
        setting = found.get("key")
        if setting is None and "workspace" in found:
            setting = found["workspace"]
            if setting.switched_on_at is None or identity.created_at > setting.switched_on_at:
                return None  # a key created (or rolled) after it was switched on starts with it off
        if setting is not None and identity.workspace_id is not None and \
                setting.connected_at != self._connected_at(identity.workspace_id):
            return None  # switched on for an earlier connection: a new connection starts with it off
        return setting

    def setting_in_force(self, action, kind, identity):
        """The setting that may accept this send automatically (switched on, not paused), or None."""
        if action in NEVER_AUTOMATIC_ACTIONS:
            return None
        setting = self.setting_for(identity, kind)
        return None if setting is None or setting.paused_at is not None else setting

    def consider(self, submission, setting):
        """Accept the submission automatically under `setting` (in force), unless it duplicates a record or
        the sender's volume is unusual (which pauses the setting). True when it was accepted."""
        decisions = Decisions(self.db, self.registry, self.clinic.id)
        if decisions.kind(submission.resource_type).duplicate_of(self.db, submission) is not None:
            return
        if self._unusual_volume(setting, submission):
            return
        decisions.confirm(submission, "automatic")
        return True

    def _unusual_volume(self, setting, submission):
        threshold, window = pause_settings(app_settings(self.registry).review)
        sender = (Submission.api_key_id if setting.sender_type == "key" else Submission.workspace_id)
        accepted = self.db.scalar(select(func.count()).select_from(Submission).where(
            sender == setting.sender_id, Submission.accepted_automatically.is_(True),
            Submission.decided_at > now() - datetime.timedelta(minutes=window)))
        if accepted < threshold:
            return False
        setting.paused_at = now()
        self.db.add(AutoAcceptPause(id=uuid.uuid4(), sender_type=setting.sender_type, sender_id=setting.sender_id,
                                    kind=setting.kind, paused_at=setting.paused_at, accepted_in_window=accepted,
                                    threshold=threshold, window_minutes=window, submission_id=submission.id))
        return True


class StaffReview:
    """The clinic's side, for one clinic (the session is bound to it)."""

    def __init__(self, db, registry, clinic):
        self.db = db
        self.registry = registry
        self.clinic = clinic
        self.decisions = Decisions(db, registry, clinic.id)

    def submissions(self, status=None):
        statement = select(Submission).order_by(Submission.submitted_at, Submission.id)
        if status:
            statement = statement.where(Submission.review_status == status)
        return self.db.scalars(statement).all()

    def submission(self, submission_id):
        submission = self.db.get(Submission, submission_id)
        if submission is None:
            raise ReviewError(f"no submission {submission_id} in this clinic")
        return submission

    def _pending(self, submission_id):
        # Locked, as last committed: a change its sender is making meanwhile is waited for, and the decision
        # is made on what the submission then holds.
        submission = locked_submission(self.db, submission_id)
        if submission is None:
            raise ReviewError(f"no submission {submission_id} in this clinic")
        if submission.review_status != "pending":
            raise ReviewError(f"submission_not_pending: submission {submission_id} is already "
                              f"{submission.review_status}")
        return submission

    def accept(self, submission_id, staff_id=None, seen=None):
        """Confirm a pending submission. `seen`: the `content_hash` of the submission as the clinician read it
        (the console sends it); refused when its sender has changed it since, so what reaches the chart is
        what was read."""
        submission = self._pending(submission_id)
        if seen is not None and seen != submission.content_hash:
            raise ReviewError("its sender changed this submission after you opened it: read it again below, "
                              "then decide")
        self.decisions.kind(submission.resource_type).check_confirm(self.db, submission)
        return self.decisions.confirm(submission, "clinic", staff_id)

    def decline(self, submission_id, reason=None, staff_id=None):
        if reason is not None and not 1 <= len(reason.strip()) <= 2000:
            raise ReviewError("--reason must be 1 to 2000 characters")
        return self.decisions.reject(self._pending(submission_id), reason and reason.strip(), staff_id)

    def review_item(self, kind, item_id, staff_id=None):
        """Mark an automatically accepted item reviewed: it then reads confirmed."""
        handler = review_kinds(self.registry).get(kind)
        if handler is None:
            raise ReviewError(f"unknown kind {kind}")
        item = self.db.get(handler.model, item_id)
        if item is None or getattr(item, "entry", None) == "legacy_text":
            raise ReviewError(f"no {kind} {item_id} in this clinic")
        if item.accepted_by != "automatic":
            raise ReviewError(f"{kind} {item_id} was not accepted automatically; there is nothing to review")
        if item.reviewed_at is not None:
            raise ReviewError(f"{kind} {item_id} was already reviewed")
        item.reviewed_at = now()
        item.reviewed_by_staff_id = staff_id
        if item.verification_status == "unconfirmed":
            item.verification_status = "confirmed"
        self.db.flush()
        return item

    # Automatic acceptance settings

    def set_auto_accept(self, kinds, enabled, key_id=None, workspace_id=None):
        registered = review_kinds(self.registry)
        unknown = sorted(set(kinds) - set(registered))
        if unknown or not kinds:
            raise ReviewError(f"--kinds takes {', '.join(sorted(registered))}"
                              + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
        if key_id is not None:
            sender_type = "key"
            sender_id, connected_at = self._key_reaching_clinic(key_id)
        else:
            sender_type, sender_id = "workspace", workspace_id
            connected_at = self._workspace_connection(workspace_id)
        settings = []
        for kind in sorted(set(kinds)):
            setting = self.db.scalar(select(AutoAcceptSetting).where(AutoAcceptSetting.sender_id == sender_id,
                                                                     AutoAcceptSetting.kind == kind))
            if setting is None:
                setting = AutoAcceptSetting(id=uuid.uuid4(), sender_type=sender_type, sender_id=sender_id, kind=kind)
                self.db.add(setting)
            setting.enabled = enabled
            setting.connected_at = connected_at
            if enabled:
                # The database's clock, like the keys' created_at it is compared with.
                setting.switched_on_at = func.now()
            if setting.paused_at is not None:
                # Switching it again is the operator's answer to a pause: it resumes (or stays off).
                setting.paused_at = None
                for pause in self.db.scalars(select(AutoAcceptPause).where(
                        AutoAcceptPause.sender_id == sender_id, AutoAcceptPause.kind == kind,
                        AutoAcceptPause.resumed_at.is_(None))):
                    pause.resumed_at = now()
            settings.append(setting)
        self.db.flush()
        return settings

    def _key_reaching_clinic(self, key_id):
        """(the key's id, the connected_at of its workspace's connection: None for a clinic's own key or on
        a sandbox)."""
        key = key_by_key_id(self.db, key_id)
        if key is None or key.revoked_at is not None:
            raise ReviewError(f"no active key {key_id}")
        if key.clinic_id is not None and key.clinic_id != self.clinic.id:
            raise ReviewError(f"key {key_id} belongs to another clinic")
        if key.workspace_id is None:
            return key.id, None
        return key.id, self._workspace_connection(key.workspace_id, for_key=(key.mode == "test"))

    def _workspace_connection(self, workspace_id, for_key=None):
        """The connected_at of the workspace's connection to this clinic (None for its own sandbox)."""
        if self.clinic.is_sandbox:
            if self.clinic.sandbox_of_workspace_id != workspace_id or for_key is False:
                raise ReviewError("only that workspace's test keys reach this sandbox clinic")
            return None
        if for_key:
            raise ReviewError("a test key reaches only its workspace's sandbox clinic")
        connected_at = current_connection_at(self.db, workspace_id, self.clinic.id)
        if connected_at is None:
            raise ReviewError(f"workspace {workspace_id} is not connected to this clinic")
        return connected_at

    def for_current_connection(self, setting):
        """Whether the setting was made for its sender's connection in force: one made for an earlier
        connection (revoked or expired, then approved again) applies to nothing, whatever `enabled` says. A
        clinic's own key has no connection: its settings are always current."""
        workspace_id = setting.sender_id if setting.sender_type == "workspace" else workspace_of_key(
            self.db, setting.sender_id)
        return workspace_id is None or setting.connected_at == connected_at_now(self.db, self.clinic, workspace_id)

    def auto_accept_state(self):
        settings = self.db.scalars(select(AutoAcceptSetting).order_by(AutoAcceptSetting.sender_id,
                                                                      AutoAcceptSetting.kind)).all()
        pauses = self.db.scalars(select(AutoAcceptPause).order_by(AutoAcceptPause.paused_at)).all()
        return settings, pauses


def submission_service_factory(context, request):
    return SubmissionService(clinic_scope(context), request.registry)


# Clinicians' decisions as the operator commands print them (`submission accept|decline`, `item review`); the
# sandbox's test helpers answer with the same, so a sandbox sees exactly what clinic staff cause.

def accept_as_staff(db, registry, clinic, submission_id, staff_id=None):
    submission = StaffReview(db, registry, clinic).accept(submission_id, staff_id)
    db.refresh(submission)
    return {"submission": staff_submission_json(submission)}


def decline_as_staff(db, registry, clinic, submission_id, reason=None, staff_id=None):
    submission = StaffReview(db, registry, clinic).decline(submission_id, reason, staff_id)
    db.refresh(submission)
    return {"submission": staff_submission_json(submission)}


def review_item_as_staff(db, registry, clinic, kind, item_id, staff_id=None):
    item = StaffReview(db, registry, clinic).review_item(kind, item_id, staff_id)
    reviewer = item.reviewed_by_staff_id
    return {"item": {"kind": kind, "id": str(item.id), "verification_status": item.verification_status,
                     "accepted_by": item.accepted_by, "reviewed_at": iso(item.reviewed_at),
                     "reviewed_by_staff_id": str(reviewer) if reviewer else None}}


# For the clinic console's queue (the portal).
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


def find_submission(db, submission_id):
    return db.get(Submission, submission_id)
