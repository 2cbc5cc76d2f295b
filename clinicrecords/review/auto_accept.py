"""Automatic acceptance: per clinic, per sender (a key, or a workspace's connection in force) and kind, off by
default; paused when a sender's volume is unusual."""

import datetime
import uuid

from sqlalchemy import String, Uuid, bindparam, func, select

from clinicrecords.access.services import current_connection_at
from clinicrecords.clock import now
from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.review.decisions import Decisions
from clinicrecords.review.models import AutoAcceptPause, AutoAcceptSetting, Submission
from clinicrecords.settings import app_settings

NEVER_AUTOMATIC_ACTIONS = ("update", "retract", "no_known_allergies")


def pause_settings(settings):
    """(threshold, window minutes): automatic acceptance pauses once a sender had `threshold` items accepted
    automatically in the clinic within the window (settings `review.auto_accept_pause_threshold`,
    `review.auto_accept_pause_window_minutes`: a ReviewSettings)."""
    return settings.auto_accept_pause_threshold, settings.auto_accept_pause_window_minutes


def connected_at_now(db, clinic, workspace_id):
    """The `connected_at` of the workspace's connection to the clinic in force (None on a sandbox, which has
    no connection: its workspace's test keys reach it)."""
    if clinic.is_sandbox:
        return None
    return current_connection_at(db, workspace_id, clinic.id)


# Built once: every send asks. A key without a workspace binds sender_workspace_id NULL, which matches no row.
# Named apart from the submission's own columns, so a send's INSERT can carry the question.
_ENABLED = (
    ((AutoAcceptSetting.sender_type == "key")
     & (AutoAcceptSetting.sender_id == bindparam("sender_key_id", type_=Uuid())))
    | ((AutoAcceptSetting.sender_type == "workspace")
       & (AutoAcceptSetting.sender_id == bindparam("sender_workspace_id", type_=Uuid()))),
    AutoAcceptSetting.kind == bindparam("setting_kind", type_=String()), AutoAcceptSetting.enabled.is_(True))
_ENABLED_SETTINGS = select(AutoAcceptSetting).where(*_ENABLED)
# Off is the common case: a cheap read settles it without loading a setting as an entity. A send's INSERT
# carries it as a returned column (review.services), so asking costs no round trip of its own.
ANY_ENABLED = select(AutoAcceptSetting.id).where(*_ENABLED).limit(1)
_ANY_ENABLED = Prebuilt(ANY_ENABLED)


def asked(identity, kind):
    """The values `ANY_ENABLED` is asked with, for this caller and kind."""
    return {"sender_key_id": identity.id, "sender_workspace_id": identity.workspace_id, "setting_kind": kind}


class AutoAcceptance:
    """Per clinic, per sender (a key, or a workspace's current connection) and kind; off by default."""

    def __init__(self, db, registry, clinic):
        self.db = db
        self.registry = registry
        self.clinic = clinic

    def _connected_at(self, workspace_id):
        return connected_at_now(self.db, self.clinic, workspace_id)

    def setting_for(self, identity, kind, any_enabled=None):
        """The setting that switches automatic acceptance on for this caller and kind, or None. The key's own
        setting wins over its workspace's; both are read in one statement (every send asks). `any_enabled`:
        the answer to `ANY_ENABLED` when the caller's own statement asked it already (None: asked here)."""
        values = asked(identity, kind)
        if any_enabled is None:
            any_enabled = _ANY_ENABLED.first(self.db, **values) is not None
        if not any_enabled:
            return None
        found = {setting.sender_type: setting for setting in self.db.scalars(_ENABLED_SETTINGS, values)}
        setting = found.get("key")
        if setting is None and "workspace" in found:
            setting = found["workspace"]
            if setting.switched_on_at is None or identity.created_at > setting.switched_on_at:
                return None  # a key created (or rolled) after it was switched on starts with it off
        if setting is not None and identity.workspace_id is not None and \
                setting.connected_at != self._connected_at(identity.workspace_id):
            return None  # switched on for an earlier connection: a new connection starts with it off
        return setting

    def setting_in_force(self, action, kind, identity, any_enabled=None):
        """The setting that may accept this send automatically (switched on, not paused), or None."""
        if action in NEVER_AUTOMATIC_ACTIONS:
            return None
        setting = self.setting_for(identity, kind, any_enabled)
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
