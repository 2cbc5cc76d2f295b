"""Memberships: an account's place in a workspace (one role: owner or developer) and on a clinic's staff
(roles: admin, clinician or both). Every lookup is by (account, workspace or clinic), so the portal's traversal
finds only the places the signed-in account belongs to."""

from sqlalchemy import delete, select
from zope.interface import implementer

from clinicrecords.identity.interfaces import IMembershipService
from clinicrecords.identity.models import STAFF_ROLES, Account, ClinicStaff, WorkspaceMember


def staff_roles_stored(roles):
    """The roles as a clinic staff row stores them: the known ones, each once, in the declared order."""
    return [role for role in STAFF_ROLES if role in set(roles)]


@implementer(IMembershipService)
class MembershipService:
    def __init__(self, db):
        self.db = db

    def workspace_roles(self, account_id):
        return [tuple(row) for row in self.db.execute(
            select(WorkspaceMember.workspace_id, WorkspaceMember.role)
            .where(WorkspaceMember.account_id == account_id).order_by(WorkspaceMember.created_at)).all()]

    def workspace_role(self, account_id, workspace_id):
        return self.db.scalar(select(WorkspaceMember.role).where(WorkspaceMember.account_id == account_id,
                                                                 WorkspaceMember.workspace_id == workspace_id))

    def add_workspace_member(self, workspace_id, account_id, role):
        if self.workspace_role(account_id, workspace_id) is None:
            self.db.add(WorkspaceMember(workspace_id=workspace_id, account_id=account_id, role=role))
            self.db.flush()

    def workspace_members(self, workspace_id):
        return self.db.execute(select(Account.id.label("account_id"), Account.email, WorkspaceMember.role,
                                      WorkspaceMember.created_at)
                               .join(Account, Account.id == WorkspaceMember.account_id)
                               .where(WorkspaceMember.workspace_id == workspace_id)
                               .order_by(WorkspaceMember.created_at)).all()

    def staff_roles(self, account_id):
        return [(row.clinic_id, tuple(row.roles)) for row in self.db.execute(
            select(ClinicStaff.clinic_id, ClinicStaff.roles).where(ClinicStaff.account_id == account_id)
            .order_by(ClinicStaff.created_at)).all()]

    def staff_roles_in(self, account_id, clinic_id):
        roles = self.db.scalar(select(ClinicStaff.roles).where(ClinicStaff.account_id == account_id,
                                                               ClinicStaff.clinic_id == clinic_id))
        return None if roles is None else tuple(roles)

    def is_staff(self, account_id):
        return self.db.scalar(select(ClinicStaff.clinic_id).where(ClinicStaff.account_id == account_id)
                              .limit(1)) is not None

    def staff_members(self, clinic_id):
        return self.db.execute(select(Account.id.label("account_id"), Account.email, ClinicStaff.roles,
                                      ClinicStaff.created_at)
                               .join(Account, Account.id == ClinicStaff.account_id)
                               .where(ClinicStaff.clinic_id == clinic_id)
                               .order_by(ClinicStaff.created_at)).all()

    def add_staff_member(self, clinic_id, account_id, roles):
        if self.staff_roles_in(account_id, clinic_id) is None:
            self.db.add(ClinicStaff(clinic_id=clinic_id, account_id=account_id, roles=staff_roles_stored(roles)))
            self.db.flush()


    def lock_workspace_members(self, workspace_id):
        """{account id: role} of the workspace's members, their rows locked to the end of the transaction: two
        owners changing roles at once cannot leave the workspace without one."""
        return dict(self.db.execute(select(WorkspaceMember.account_id, WorkspaceMember.role)
                                    .where(WorkspaceMember.workspace_id == workspace_id)
                                    .order_by(WorkspaceMember.account_id).with_for_update()).all())

    def set_workspace_role(self, workspace_id, account_id, role):
        self.db.get(WorkspaceMember, (workspace_id, account_id)).role = role
        self.db.flush()

    def remove_workspace_member(self, workspace_id, account_id):
        self.db.execute(delete(WorkspaceMember).where(WorkspaceMember.workspace_id == workspace_id,
                                                      WorkspaceMember.account_id == account_id))

    def lock_staff(self, clinic_id):
        """{account id: roles (a tuple)} of the clinic's staff, their rows locked to the end of the transaction."""
        return {account_id: tuple(roles) for account_id, roles in self.db.execute(
            select(ClinicStaff.account_id, ClinicStaff.roles).where(ClinicStaff.clinic_id == clinic_id)
            .order_by(ClinicStaff.account_id).with_for_update()).all()}

    def set_staff_roles(self, clinic_id, account_id, roles):
        self.db.get(ClinicStaff, (clinic_id, account_id)).roles = staff_roles_stored(roles)
        self.db.flush()

    def remove_staff_member(self, clinic_id, account_id):
        self.db.execute(delete(ClinicStaff).where(ClinicStaff.clinic_id == clinic_id,
                                                  ClinicStaff.account_id == account_id))


def membership_service_factory(context, request):
    return MembershipService(request.db)


def memberships_in(db):
    """The `IMembershipService` on a session the caller holds: a listener told of a moment in a transaction
    that is not a request's (`clinicrecords.publishing.Place`) reads who belongs where inside it."""
    return MembershipService(db)
