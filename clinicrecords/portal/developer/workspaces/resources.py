import uuid

from pyramid.httpexceptions import HTTPForbidden
from pyramid.traversal import find_interface
from zope.interface import implementer

from clinicrecords.access.interfaces import IWorkspaceMembership
from clinicrecords.identity.services import IFactorService, IInvitationService, Place
from clinicrecords.portal.developer.workspaces.interfaces import IWorkspaceService
from clinicrecords.portal.invitations.resources import InvitationLink
from clinicrecords.portal.team.resources import TeamArea, TeamMemberPage, TeamWords
from clinicrecords.portal.web.resources import Node
from clinicrecords.portal.web.security import is_staff

# {segment: node class} under a workspace, as the areas registered them (`add_workspace_child`).
WORKSPACE_CHILDREN = "portal.workspace_children"


class WorkspacesCollection(Node):
    """/workspaces/{workspace_id}: only the signed-in member's own workspaces exist here."""

    # Clinic staff accounts work in the clinic console only: no workspace (the permission map).
    developers_only = True
    service = IWorkspaceService
    item_parameter = "workspace_id"

    def __getitem__(self, name):
        identity = self.request.identity
        if identity is None:
            raise HTTPForbidden()  # to the login page, before anything about the id is looked up
        try:
            workspace_id = uuid.UUID(name)
        except ValueError:
            raise KeyError(name) from None
        membership = self.request.find_service(self.service).membership(identity.account_id, workspace_id)
        if membership is None:
            raise KeyError(name)
        return self.item_resource(self, name, membership, identity.account_id)


@implementer(IWorkspaceMembership)
class WorkspaceResource(Node):
    """/workspaces/{workspace_id}: its pages are the areas' (`add_workspace_child`). It holds the
    signed-in account's membership, which the permission map reads (member, owner)."""

    children_registered_as = WORKSPACE_CHILDREN

    def __init__(self, parent, name, membership, account_id):
        super().__init__(parent, name)
        self.membership = membership
        self.workspace = membership.workspace
        self.account_id = account_id

    @property
    def is_owner(self):
        return self.membership.is_owner

    @property
    def second_factor_required(self):
        """"workspace" when its owner requires a second factor of every member (portal.accounts.factors.required)."""
        return "workspace" if self.request.find_service(IFactorService).workspace_requires(self.workspace.id) else None

    @property
    def workspace_resource(self):
        return self


WorkspacesCollection.item_resource = WorkspaceResource


class WorkspacePart(Node):
    """Any page below a workspace: it knows its workspace (and the member's role there)."""

    @property
    def workspace_resource(self):
        return find_interface(self, WorkspaceResource)

    @property
    def workspace(self):
        return self.workspace_resource.workspace

    @property
    def membership(self):
        return self.workspace_resource.membership


class Members(TeamArea, WorkspacePart):
    """/workspaces/{id}/members: the team pages both faces show (`portal.team`)."""

    layout = "clinicrecords.portal.developer.workspaces:templates/workspace_layout.jinja2"
    section = "members"
    words = TeamWords("Members", "member", "the workspace", "Member since")
    role_options = [("developer", "Developer", "works with keys, webhooks and the sandbox"),
                    ("owner", "Owner", "also manages members, accepts the API Terms, chooses the plan and may "
                                       "close the workspace")]
    invite_role = "developer"
    link_page = "invitations"

    @property
    def place(self):
        return Place("workspace", self.workspace.id, self.workspace.name)

    @property
    def manages(self):
        return self.membership.is_owner

    @property
    def path(self):
        return ("workspaces", self.workspace.id, "members")


class MemberPage(TeamMemberPage, WorkspacePart):
    """/workspaces/{id}/members/{account_id}: an owner changes a member's role or removes them."""


Members.item_resource = MemberPage


class CloseWorkspace(WorkspacePart):
    """/workspaces/{id}/close: an owner closes the workspace, typing its name to confirm."""


class Activity(WorkspacePart):
    """/workspaces/{id}/activity"""


class InvitationPage(InvitationLink):
    """/invitations?token=…: a workspace's invitation link; accepted only when signed in as the invited email."""

    kind = "workspace"
    developers_only = True  # a staff account can neither see nor accept a workspace invitation
    joining, join_words = "the workspace", "Join the workspace"

    def target_name(self, invitation):
        return self.request.find_service(IWorkspaceService).workspace(invitation.workspace_id).name

    def joined_path(self, invitation):
        return ("workspaces", invitation.workspace_id)

    def wrong_account(self):
        identity = self.request.identity
        return self.forbidden_message if identity is not None and is_staff(self.request, identity) else None

    @property
    def forbidden_message(self):
        """What a signed-in clinic staff account is told here (the map keeps it off a workspace's pages): what is
        wrong, and that another account is needed (the page offers to switch)."""
        invitation = self.request.find_service(IInvitationService).invitation(self.token, self.kind)
        invited = f"for {invitation.email}, " if invitation is not None else ""
        return (f"This workspace invitation is {invited}a developer portal account, and you are signed in with a "
                "clinic staff account, which cannot join a workspace. Log out, then log in (or create an account) "
                "with the invited address.")

    @property
    def switch_account(self):
        """Where "Log out and switch account" leads back to: this link."""
        return self.url()


def add_workspace_child(config, name, factory):
    """`/workspaces/{workspace_id}/<name>` is `factory(parent, name)`."""
    config.registry.setdefault(WORKSPACE_CHILDREN, {})[name] = factory
