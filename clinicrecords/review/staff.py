"""The clinic's side of the review queue, for one clinic: decisions, reviews of automatically accepted items and
the automatic-acceptance settings (operator CLI, the clinic console, the sandbox's test helpers)."""

import uuid

from sqlalchemy import func, select

from clinicrecords.access.services import current_connection_at, key_by_key_id, workspace_of_key
from clinicrecords.api.render import iso
from clinicrecords.clock import now
from clinicrecords.review.auto_accept import connected_at_now
from clinicrecords.review.decisions import Decisions, ReviewError, locked_submission
from clinicrecords.review.kinds import review_kinds
from clinicrecords.review.models import AutoAcceptPause, AutoAcceptSetting, Submission
from clinicrecords.review.representations import staff_submission_json


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
