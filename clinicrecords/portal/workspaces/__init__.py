"""Workspaces: the member's list, creation (with its sandbox clinic), overview, members and invitations."""

from clinicrecords.portal.workspaces.interfaces import IWorkspaceService
from clinicrecords.portal.workspaces.resources import (Activity, InvitationPage, Members, WorkspacesCollection,
                                                       add_workspace_child)
from clinicrecords.portal.workspaces.services import workspace_service_factory


def includeme(config):
    config.registry["portal.workspace_children"] = {}
    config.add_directive("add_workspace_child", add_workspace_child)
    config.register_service_factory(workspace_service_factory, iface=IWorkspaceService)
    config.add_portal_child("workspaces", WorkspacesCollection)
    config.add_portal_child("invitations", InvitationPage)
    config.add_workspace_child("members", Members)
    config.add_workspace_child("activity", Activity)
    config.scan(".views")
