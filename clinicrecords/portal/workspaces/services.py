"""Workspaces from a member's side. A member sees only the workspaces they belong to: every lookup here is
by (account, workspace), so another workspace's id finds nothing (the page answers 404)."""

import datetime
from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.clock import now
from clinicrecords.portal.accounts.models import Account
from clinicrecords.portal.accounts.services import email_problem, normal_email
from clinicrecords.portal.web.audit import named_targets
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.web.tokens import new_token, token_hash
from clinicrecords.portal.workspaces.interfaces import IWorkspaceService
from clinicrecords.portal.workspaces.models import ROLES, Invitation, Member
from clinicrecords.sandbox.services import seed_sandbox

INVITATION_LIFETIME = datetime.timedelta(days=7)


@dataclass(frozen=True)
class Membership:
    workspace: object  # clinicrecords.access Workspace, read through the access services
    role: str

    @property
    def is_owner(self):
        return self.role == "owner"


@implementer(IWorkspaceService)
class WorkspaceService:
    def __init__(self, db, audit, seed, clock=now):
        self.db = db
        self.audit = audit
        self.seed = seed
        self.clock = clock

    def memberships(self, account_id):
        rows = self.db.execute(select(Member.workspace_id, Member.role).where(Member.account_id == account_id)
                               .order_by(Member.created_at)).all()
        return [Membership(access.get_workspace(self.db, row.workspace_id), row.role) for row in rows]

    def membership(self, account_id, workspace_id):
        role = self.db.scalar(select(Member.role).where(Member.account_id == account_id,
                                                        Member.workspace_id == workspace_id))
        if role is None:
            return None
        return Membership(access.get_workspace(self.db, workspace_id), role)

    def create(self, account_id, name):
        """A workspace with its seeded sandbox clinic (as `workspace create` does), its creator its owner."""
        name = (name or "").strip()
        if not name:
            raise FormError("name", "Enter a name for the workspace")
        if len(name) > 200:
            raise FormError("name", "Enter a name of at most 200 characters")
        workspace = access.create_workspace(self.db, name, seed=self.seed)
        self.db.add(Member(workspace_id=workspace.id, account_id=account_id, role="owner"))
        self.audit.record("workspace.created", account_id=account_id, workspace_id=workspace.id, target=name)
        self.db.flush()
        return workspace

    def activity(self, workspace_id):
        """(entry, member's email or None for an operator, its target's NamedTarget or None), newest first."""
        entries = self.audit.for_workspace(workspace_id)
        emails = dict(self.db.execute(select(Account.id, Account.email).where(
            Account.id.in_({entry.account_id for entry in entries if entry.account_id}))).all()) if entries else {}
        named = named_targets(self.db, entries)
        return [(entry, emails.get(entry.account_id), named.get(entry.id)) for entry in entries]

    def members(self, workspace_id):
        return self.db.execute(select(Account.email, Member.role, Member.created_at)
                               .join(Account, Account.id == Member.account_id)
                               .where(Member.workspace_id == workspace_id).order_by(Member.created_at)).all()

    def pending_invitations(self, workspace_id):
        return self.db.scalars(select(Invitation).where(
            Invitation.workspace_id == workspace_id, Invitation.accepted_at.is_(None),
            Invitation.expires_at > self.clock()).order_by(Invitation.created_at)).all()

    def invite(self, workspace_id, email, role, invited_by):
        """(invitation, token): the token is in the link only, never stored."""
        email = normal_email(email)
        problem = email_problem(email)
        if problem:
            raise FormError("email", problem.replace("your email", "the email"))
        if role not in ROLES:
            raise FormError("role", "Choose owner or developer")
        access.get_workspace(self.db, workspace_id)
        if any(member.email == email for member in self.members(workspace_id)):
            raise FormError("email", "This person is already a member of the workspace")
        token = new_token()
        invitation = Invitation(workspace_id=workspace_id, email=email, role=role, token_hash=token_hash(token),
                                invited_by=invited_by, expires_at=self.clock() + INVITATION_LIFETIME)
        self.db.add(invitation)
        self.audit.record("member.invited", account_id=invited_by, workspace_id=workspace_id, target=email,
                          role=role)
        self.db.flush()
        return invitation, token

    def invitation(self, token):
        """The open invitation this link's token names, or None (unknown, used or expired)."""
        return self.db.scalar(select(Invitation).where(
            Invitation.token_hash == token_hash(token or ""), Invitation.accepted_at.is_(None),
            Invitation.expires_at > self.clock()))

    def accept(self, token, account_id):
        invitation = self.invitation(token)
        if invitation is None:
            raise FormError("token", "This invitation has been used or has expired")
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        if email != invitation.email:
            raise FormError("token", f"This invitation is for {invitation.email}: log in with that email")
        invitation.accepted_at = self.clock()
        if self.membership(account_id, invitation.workspace_id) is None:
            self.db.add(Member(workspace_id=invitation.workspace_id, account_id=account_id, role=invitation.role))
        self.audit.record("member.added", account_id=account_id, workspace_id=invitation.workspace_id,
                          target=email, role=invitation.role)
        self.db.flush()
        return invitation


def workspace_service_factory(context, request):
    return WorkspaceService(request.db, request.find_service(IPortalAudit),
                            seed=lambda db, clinic: seed_sandbox(request, clinic))
