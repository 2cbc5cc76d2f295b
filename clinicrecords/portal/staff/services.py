"""A clinic's staff. An operator adds the first member (`clinic staff add`), an admin invites others; both
create a one-time link. Following it, a person without an account sets a password (the account is created
and signed in); a person with a staff account signs in and joins. A developer portal account never joins a
clinic's staff, and a staff account never joins a workspace: the two faces stay apart."""

import datetime
from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.clock import now
from clinicrecords.portal.accounts.interfaces import IAccountService
from clinicrecords.portal.accounts.models import Account
from clinicrecords.portal.accounts.services import email_problem, normal_email
from clinicrecords.portal.staff.interfaces import IStaffService
from clinicrecords.portal.staff.models import ROLES, ClinicStaff, StaffInvitation
from clinicrecords.portal.web.audit import named_targets
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.web.resources import STAFF
from clinicrecords.portal.web.tokens import new_token, token_hash
from clinicrecords.portal.workspaces.interfaces import IWorkspaceService

INVITATION_LIFETIME = datetime.timedelta(days=7)


@dataclass(frozen=True)
class StaffMembership:
    clinic: object  # clinicrecords.clinics Clinic, read through the access services
    role: str

    @property
    def is_admin(self):
        return self.role == "admin"


@implementer(IStaffService)
class StaffService:
    def __init__(self, db, audit, accounts, workspaces, clock=now):
        self.db = db
        self.audit = audit
        self.accounts = accounts
        self.workspaces = workspaces
        self.clock = clock

    def memberships(self, account_id):
        rows = self.db.execute(select(ClinicStaff.clinic_id, ClinicStaff.role)
                               .where(ClinicStaff.account_id == account_id)
                               .order_by(ClinicStaff.created_at)).all()
        return [StaffMembership(access.get_clinic(self.db, row.clinic_id), row.role) for row in rows]

    def membership(self, account_id, clinic_id):
        role = self.db.scalar(select(ClinicStaff.role).where(ClinicStaff.account_id == account_id,
                                                             ClinicStaff.clinic_id == clinic_id))
        return None if role is None else StaffMembership(access.get_clinic(self.db, clinic_id), role)

    def is_staff(self, account_id):
        return self.db.scalar(select(ClinicStaff.clinic_id).where(ClinicStaff.account_id == account_id)
                              .limit(1)) is not None

    def members(self, clinic_id):
        return self.db.execute(select(Account.email, ClinicStaff.role, ClinicStaff.created_at)
                               .join(Account, Account.id == ClinicStaff.account_id)
                               .where(ClinicStaff.clinic_id == clinic_id)
                               .order_by(ClinicStaff.created_at)).all()

    def pending_invitations(self, clinic_id):
        return self.db.scalars(select(StaffInvitation).where(
            StaffInvitation.clinic_id == clinic_id, StaffInvitation.accepted_at.is_(None),
            StaffInvitation.expires_at > self.clock()).order_by(StaffInvitation.created_at)).all()

    def invite(self, clinic_id, email, role, invited_by):
        """(invitation, token): the token is in the link only, never stored."""
        email = normal_email(email)
        problem = email_problem(email)
        if problem:
            raise FormError("email", problem.replace("your email", "the email"))
        if role not in ROLES:
            raise FormError("role", "Choose admin or clinician")
        clinic = access.get_clinic(self.db, clinic_id)
        if clinic.sandbox_of_workspace_id is not None:
            raise FormError("clinic", "A workspace's sandbox clinic has no staff: its workspace drives it")
        self._refuse_developer(email)
        if any(member.email == email for member in self.members(clinic_id)):
            raise FormError("email", "This person is already on the clinic's staff")
        token = new_token()
        invitation = StaffInvitation(clinic_id=clinic_id, email=email, role=role,
                                     token_hash=token_hash(token),
                                     invited_by=invited_by, expires_at=self.clock() + INVITATION_LIFETIME)
        self.db.add(invitation)
        self.audit.record("staff.invited", account_id=invited_by, clinic_id=clinic_id, target=email,
                          role=role)
        self.db.flush()
        return invitation, token

    def _refuse_developer(self, email):
        account = self.accounts.by_email(email)
        if account is not None and self.workspaces.memberships(account.id):
            raise FormError("email",
                            "This email has a developer portal account: clinic staff need an account "
                                     "of their own, with another email address")

    def invitation(self, token):
        """The open invitation this link's token names, or None (unknown, used or expired)."""
        return self.db.scalar(select(StaffInvitation).where(
            StaffInvitation.token_hash == token_hash(token or ""), StaffInvitation.accepted_at.is_(None),
            StaffInvitation.expires_at > self.clock()))

    def clinic_of(self, invitation):
        return access.get_clinic(self.db, invitation.clinic_id)

    def activity(self, clinic_id):
        """(entry, staff member's email or None for an operator, its target's NamedTarget or None), newest
        first."""
        entries = self.audit.for_clinic(clinic_id)
        ids = {entry.account_id for entry in entries if entry.account_id}
        emails = dict(self.db.execute(select(Account.id, Account.email).where(Account.id.in_(ids))).all())
        named = named_targets(self.db, entries)
        return [(entry, emails.get(entry.account_id), named.get(entry.id)) for entry in entries]

    def needs_password(self, invitation):
        return self.accounts.by_email(invitation.email) is None

    def join(self, token, password=None, account_id=None):
        """Accept the invitation: with a password for a new account, or as the signed-in account of that
        email. Returns the account id on the clinic's staff."""
        invitation = self.invitation(token)
        if invitation is None:
            raise FormError("password", "This link has been used or has expired: ask for a new one")
        self._refuse_developer(invitation.email)
        existing = self.accounts.by_email(invitation.email)
        if existing is None:
            account_id = self.accounts.sign_up(invitation.email, password or "").id
        elif existing.id != account_id:
            raise FormError("password", f"This link is for {invitation.email}: log in with that email first")
        invitation.accepted_at = self.clock()
        if self.membership(account_id, invitation.clinic_id) is None:
            self.db.add(ClinicStaff(clinic_id=invitation.clinic_id, account_id=account_id,
                                    role=invitation.role))
        self.audit.record("staff.joined", account_id=account_id, clinic_id=invitation.clinic_id,
                          target=invitation.email, role=invitation.role)
        self.db.flush()
        return account_id, invitation.clinic_id


def staff_service_factory(context, request):
    return StaffService(request.db, request.find_service(IPortalAudit), request.find_service(IAccountService),
                        request.find_service(IWorkspaceService))


def staff_principals(request, identity):
    """`portal.principal_finders`: the staff principal of a staff account (once per request)."""
    state = request.state
    if state.portal_is_staff is None:
        state.portal_is_staff = request.find_service(IStaffService).is_staff(identity.account_id)
    return (STAFF,) if state.portal_is_staff else ()
