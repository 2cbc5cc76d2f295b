"""Workspaces: the member's list, creation (with its sandbox clinic), overview, activity and closing; the members
pages and the invitation link's page are the ones both faces show (`portal.team`, `portal.invitations`)."""

from clinicrecords.portal.developer.workspaces.interfaces import IWorkspaceService
from clinicrecords.portal.developer.workspaces.resources import (Activity, CloseWorkspace, InvitationPage, Members,
                                                                 WorkspacesCollection, add_workspace_child)
from clinicrecords.portal.developer.workspaces.services import workspace_service_factory
from clinicrecords.portal.invitations import add_invitation_pages
from clinicrecords.portal.team import add_team_pages
from clinicrecords.portal.web.resources import MEMBER, OWNER, SIGNED_IN, add_portal_child


def includeme(config):
    config.register_service_factory(workspace_service_factory, iface=IWorkspaceService)
    add_portal_child(config, "workspaces", WorkspacesCollection)
    add_portal_child(config, "invitations", InvitationPage)
    add_invitation_pages(config, InvitationPage, SIGNED_IN)
    add_workspace_child(config, "members", Members)
    add_team_pages(config, Members, MEMBER, OWNER)
    add_workspace_child(config, "close", CloseWorkspace)
    add_workspace_child(config, "activity", Activity)
    config.scan(".views")
