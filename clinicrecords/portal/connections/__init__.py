"""Connections: the clinics a workspace reaches, with the permissions each granted."""

from clinicrecords.portal.connections.interfaces import IConnectionsView
from clinicrecords.portal.connections.services import connections_view_factory
from clinicrecords.portal.connections.views import ConnectionsPage


def includeme(config):
    config.register_service_factory(connections_view_factory, iface=IConnectionsView)
    config.add_workspace_child("connections", ConnectionsPage)
    config.scan(".views")
