"""The portal's audit trail: each action a member (or an operator) takes, with who and when. Entries name
what changed (a key's public id, a role, a version): never a secret."""

from sqlalchemy import select

from clinicrecords.portal.web.models import PortalAuditEntry


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
