"""Workspaces from a member's side, as the developer portal's pages show them: the account's memberships (the
identity context's) with their workspaces (access's), creation with the sandbox, and the activity trail. A
member sees only the workspaces they belong to: every lookup here is by (account, workspace), so another
workspace's id finds nothing (the page answers 404)."""

from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.events.interfaces import IWebhookEndpoints, Owner
from clinicrecords.mail.services import NAME_REFUSED, holds_link_or_key
from clinicrecords.identity.services import IAccountService, IMembershipService, ITeamService, Place
from clinicrecords.portal.web.activity import activity_row
from clinicrecords.portal.web.audit import named_targets
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.web.models import PortalAuditEntry
from clinicrecords.portal.developer.workspaces.interfaces import IWorkspaceService
from clinicrecords.sandbox.services import seed_sandbox


@dataclass(frozen=True)
class Membership:
    workspace: object  # clinicrecords.access Workspace, read through the access services
    role: str

    @property
    def is_owner(self):
        return self.role == "owner"


@implementer(IWorkspaceService)
class WorkspaceService:
    def __init__(self, db, audit, memberships, accounts, seed, team=None, endpoints=None):
        self.db = db
        self.audit = audit
        self.people = memberships
        self.accounts = accounts
        self.seed = seed
        self.team = team
        self.endpoints = endpoints

    def memberships(self, account_id):
        held = [Membership(access.get_workspace(self.db, workspace_id), role)
                for workspace_id, role in self.people.workspace_roles(account_id)]
        return [membership for membership in held if membership.workspace.closed_at is None]

    def membership(self, account_id, workspace_id):
        role = self.people.workspace_role(account_id, workspace_id)
        if role is None:
            return None
        workspace = access.get_workspace(self.db, workspace_id)
        return None if workspace.closed_at is not None else Membership(workspace, role)

    def workspace(self, workspace_id):
        return access.get_workspace(self.db, workspace_id)

    def create(self, account_id, name):
        """A workspace with its seeded sandbox clinic (as `workspace create` does), its creator its owner."""
        name = (name or "").strip()
        if not name:
            raise FormError("name", "Enter a name for the workspace")
        if len(name) > 200:
            raise FormError("name", "Enter a name of at most 200 characters")
        if holds_link_or_key(name):
            raise FormError("name", f"A workspace's name {NAME_REFUSED}")
        workspace = access.create_workspace(self.db, name, seed=self.seed)
        self.people.add_workspace_member(workspace.id, account_id, "owner")
        self.audit.record("workspace.created", account_id=account_id, workspace_id=workspace.id, target=name)
        self.db.flush()
        return workspace

    def close(self, workspace, account_id, typed_name):
        if (typed_name or "").strip() != workspace.name:
            raise FormError("name", f"Type the workspace's name, {workspace.name}, exactly as it is shown")
        try:  # first: it locks the workspace's row, so a second closing at once waits, then is refused here
            closing = access.close_workspace(self.db, workspace.id, account_id)
        except access.AccessError:
            raise FormError("name", "This workspace was closed already") from None
        owner = Owner.workspace(workspace.id)
        endpoints = [endpoint["endpoint_id"] for endpoint in self.endpoints.list(owner)]
        for endpoint_id in endpoints:
            self.endpoints.delete(owner, endpoint_id)
        members = self.team.dissolve(Place("workspace", workspace.id, workspace.name), account_id)
        self.audit.record("workspace.closed", account_id=account_id, workspace_id=workspace.id, target=workspace.name,
                          members=sorted(members.values()), member_ids=sorted(map(str, members)),
                          keys_revoked=closing.key_ids,
                          connections_ended=[str(clinic_id) for clinic_id in closing.clinic_ids],
                          webhook_endpoints_deleted=len(endpoints))
        self.db.flush()
        return closing

    def closed_for(self, account_id):
        entries = self.db.scalars(select(PortalAuditEntry).where(
            PortalAuditEntry.action == "workspace.closed",
            PortalAuditEntry.details.contains({"member_ids": [str(account_id)]}))
            .order_by(PortalAuditEntry.at.desc()).limit(10)).all()
        closers = self.accounts.emails(entry.account_id for entry in entries)
        return [(entry.target, entry.at, closers.get(entry.account_id)) for entry in entries]

    def activity(self, workspace_id):
        """The trail as `ActivityRow`s, newest first: a sentence each, the time in UTC (a workspace's members may
        be anywhere), the clinic or key it was about named."""
        entries = self.audit.for_workspace(workspace_id)
        emails = self.accounts.emails(entry.account_id for entry in entries)
        named = named_targets(self.db, entries)
        return [activity_row(entry, emails.get(entry.account_id), named.get(entry.id)) for entry in entries]


def workspace_service_factory(context, request):
    return WorkspaceService(request.db, request.find_service(IPortalAudit), request.find_service(IMembershipService),
                            request.find_service(IAccountService),
                            seed=lambda db, clinic: seed_sandbox(request, clinic),
                            team=request.find_service(ITeamService),
                            endpoints=request.find_service(IWebhookEndpoints))
