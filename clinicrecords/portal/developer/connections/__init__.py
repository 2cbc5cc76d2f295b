"""Connections: the clinics a workspace reaches, with the permissions each granted."""

from clinicrecords.portal.developer.connections.interfaces import IConnectionsView
from clinicrecords.portal.developer.connections.services import connections_view_factory
from clinicrecords.portal.developer.connections.views import ConnectionsPage
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    config.register_service_factory(connections_view_factory, iface=IConnectionsView)
    add_workspace_child(config, "connections", ConnectionsPage)
    config.scan(".views")
