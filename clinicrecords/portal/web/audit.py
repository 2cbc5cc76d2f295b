"""The portal's audit trail: each action a member (or an operator) takes, with who and when. Entries name
what changed (a key's public id, a role, a version): never a secret."""

import uuid
from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.web.models import PortalAuditEntry

# Actions whose target is another owner's id: a connection's rows name the clinic (on the workspace's trail) or
# the workspace (on the clinic's). Automatic acceptance's targets say their kind ("workspace:<id>", "key:<id>").
TARGET_KINDS = {"connection.requested": "clinic", "connection.approved": "workspace",
                "connection.declined": "workspace", "connection.narrowed": "workspace",
                "connection.revoked": "workspace"}


@dataclass(frozen=True)
class NamedTarget:
    """An audit row's target as people read it: the name, and the id it stands for (shown beside it)."""

    name: str
    ref: str


def _target_ref(entry):
    """(kind, id) when the entry's target is a workspace, a clinic or a key; else None."""
    target = entry.target or ""
    kind, _, value = target.partition(":")
    if not value:
        kind, value = TARGET_KINDS.get(entry.action), target
    if kind == "key":
        return kind, value
    if kind in ("workspace", "clinic"):
        try:
            return kind, uuid.UUID(value)
        except ValueError:
            return None
    return None


def named_targets(db, entries):
    """{entry id: NamedTarget} for the entries whose target is a workspace, clinic or key, resolved in one
    statement for the page; a target that no longer resolves keeps its id."""
    refs = {entry.id: ref for entry in entries if (ref := _target_ref(entry)) is not None}
    names = access.display_names(db, workspace_ids={v for k, v in refs.values() if k == "workspace"},
                                 clinic_ids={v for k, v in refs.values() if k == "clinic"},
                                 key_ids={v for k, v in refs.values() if k == "key"})
    named = {}
    for entry_id, (kind, value) in refs.items():
        if kind == "key":
            key = names.keys.get(value)
            name = key.label if key else None
            ref = key.masked if key else value
        else:
            name = (names.workspaces if kind == "workspace" else names.clinics).get(value)
            ref = str(value)
        if name is not None:
            named[entry_id] = NamedTarget(name, ref)
    return named


@implementer(IPortalAudit)
class PortalAudit:
    def __init__(self, db):
        self.db = db

    def record(self, action, *, account_id, workspace_id=None, clinic_id=None, target=None, **details):
        self.db.add(PortalAuditEntry(action=action, account_id=account_id, workspace_id=workspace_id,
                                     clinic_id=clinic_id, target=None if target is None else str(target),
                                     details=details))

    def for_workspace(self, workspace_id, limit=100):
        return self.db.scalars(select(PortalAuditEntry).where(PortalAuditEntry.workspace_id == workspace_id)
                               .order_by(PortalAuditEntry.at.desc(), PortalAuditEntry.id).limit(limit)).all()


    def for_clinic(self, clinic_id, limit=100):
        return self.db.scalars(select(PortalAuditEntry).where(PortalAuditEntry.clinic_id == clinic_id)
                               .order_by(PortalAuditEntry.at.desc(), PortalAuditEntry.id).limit(limit)).all()


def portal_audit_factory(context, request):
    return PortalAudit(request.db)
