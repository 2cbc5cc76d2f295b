"""Workspaces: the member's list, creation (with its sandbox clinic), overview, members and inviting them (the
invitation link's page is the one both faces show, `portal.invitations`)."""

from clinicrecords.portal.developer.workspaces.interfaces import IWorkspaceService
from clinicrecords.portal.developer.workspaces.resources import (Activity, InvitationPage, Members,
                                                                 WorkspacesCollection, add_workspace_child)
from clinicrecords.portal.developer.workspaces.services import workspace_service_factory
from clinicrecords.portal.invitations import add_invitation_pages
from clinicrecords.portal.web.resources import SIGNED_IN, add_portal_child


def includeme(config):
    config.register_service_factory(workspace_service_factory, iface=IWorkspaceService)
    add_portal_child(config, "workspaces", WorkspacesCollection)
    add_portal_child(config, "invitations", InvitationPage)
    add_invitation_pages(config, InvitationPage, SIGNED_IN)
    add_workspace_child(config, "members", Members)
    add_workspace_child(config, "activity", Activity)
    config.scan(".views")
