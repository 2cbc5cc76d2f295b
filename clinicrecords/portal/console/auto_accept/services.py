"""Automatic acceptance in the console (decision 0033): per organization (a connected workspace) or per key,
per kind; off by default. The review context's `StaffReview.set_auto_accept` is the one writer (as for
`auto-accept set`), so its rules hold here: a new connection and a new or rolled key start with it off, and
switching a paused setting on again resumes it. Saving a sender's form switches only the kinds whose box
changed, so re-saving never widens an organization's setting to keys created since it was switched on."""

import uuid
from dataclasses import dataclass, field
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import key_label, masked
from clinicrecords.clinics.services import open_clinic
from clinicrecords.portal.console.auto_accept.interfaces import IAutoAcceptSettings
from clinicrecords.portal.console.refusals import form_error
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.review.interfaces import review_kinds
from clinicrecords.review.services import ReviewError, StaffReview, pause_settings
from clinicrecords.settings import app_settings


@dataclass
class Sender:
    ref: str  # "workspace:<id>" or "key:<public key id>": the form's name for it
    label: str
    kind: str  # organization | key
    detail: str | None = None  # a named key's masked id
    enabled: set = field(default_factory=set)
    paused: dict = field(default_factory=dict)  # kind → pause (when, how many, threshold, window)


def _detail(key):
    """A named key's masked id, shown under its name."""
    return masked(key.mode, key.key_id) if key.name else None


@implementer(IAutoAcceptSettings)
class AutoAcceptSettings:
    def __init__(self, db, registry, audit):
        self.db = db
        self.registry = registry
        self.audit = audit

    def kinds(self):
        return sorted(review_kinds(self.registry))

    def _staff(self, clinic_id):
        return StaffReview(self.db, self.registry, open_clinic(self.db, clinic_id))

    def senders(self, clinic_id):
        """The connected organizations, their live keys and the clinic's own keys, with their settings."""
        staff = self._staff(clinic_id)
        senders, by_id = [], {}
        for connection in access.list_connections(self.db, clinic_id=clinic_id):
            if connection.revoked_at is not None:
                continue
            workspace = access.get_workspace(self.db, connection.workspace_id)
            sender = Sender(f"workspace:{workspace.id}", workspace.name, "organization")
            senders.append(sender)
            by_id[workspace.id] = sender
            for key in access.list_keys(self.db, workspace_id=workspace.id):
                if key.revoked_at is None and key.mode == "live":
                    by_id[key.id] = Sender(f"key:{key.key_id}", f"{workspace.name}: {key_label(key)}", "key",
                                           _detail(key))
                    senders.append(by_id[key.id])
        for key in access.list_keys(self.db, clinic_id=clinic_id):
            if key.revoked_at is None:
                by_id[key.id] = Sender(f"key:{key.key_id}", f"The clinic's own key {key_label(key)}", "key",
                                       _detail(key))
                senders.append(by_id[key.id])
        settings, pauses = staff.auto_accept_state()
        open_pauses = {(p.sender_id, p.kind): p for p in pauses if p.resumed_at is None}
        for setting in settings:
            sender = by_id.get(setting.sender_id)
            if sender is None or not setting.enabled or not staff.for_current_connection(setting):
                continue  # one made for an earlier connection applies to nothing: shown off
            sender.enabled.add(setting.kind)
            if setting.paused_at is not None:
                sender.paused[setting.kind] = open_pauses.get((setting.sender_id, setting.kind))
        return senders

    def pause_rule(self):
        return pause_settings(app_settings(self.registry).review)

    def save(self, clinic_id, ref, checked, account_id):
        """Switch on the newly ticked kinds and off the newly unticked ones, for one sender."""
        sender = self._sender(clinic_id, ref)
        checked = set(checked)
        unknown = checked - set(self.kinds())
        if unknown:
            raise FormError("kinds", "Choose among the kinds listed")
        on, off = sorted(checked - sender.enabled), sorted(sender.enabled - checked)
        for kinds, enabled in ((on, True), (off, False)):
            if kinds:
                self._set(clinic_id, ref, kinds, enabled)
        if on or off:
            self.audit.record("auto_accept.changed", account_id=account_id, clinic_id=clinic_id, target=ref,
                              switched_on=on, switched_off=off)
        return on, off

    def resume(self, clinic_id, ref, kind, account_id):
        sender = self._sender(clinic_id, ref)
        if kind not in sender.paused:
            raise FormError("kinds", "Automatic acceptance of this kind is not paused for this sender")
        self._set(clinic_id, ref, [kind], True)
        self.audit.record("auto_accept.resumed", account_id=account_id, clinic_id=clinic_id, target=ref,
                          kind=kind)

    def _sender(self, clinic_id, ref):
        sender = next((s for s in self.senders(clinic_id) if s.ref == ref), None)
        if sender is None:
            raise FormError("kinds", "This sender no longer reaches the clinic: reload the page")
        return sender

    def _set(self, clinic_id, ref, kinds, enabled):
        kind_of_sender, _, value = ref.partition(":")
        sender = {"key_id": value} if kind_of_sender == "key" else {"workspace_id": uuid.UUID(value)}
        try:
            self._staff(clinic_id).set_auto_accept(kinds, enabled, **sender)
        except ReviewError as exc:
            raise form_error("kinds", exc) from None


def auto_accept_settings_factory(context, request):
    return AutoAcceptSettings(request.db, request.registry, request.find_service(IPortalAudit))
