"""Connections in the clinic console (decision 0033): an organization asks from the developer portal
(`/workspaces/{id}/connection-requests`), the clinic's admin approves permission by permission with an
optional expiry or declines, and later narrows or revokes (`/clinics/{id}/connections`)."""

from clinicrecords.portal.clinic_connections.interfaces import IClinicConnections
from clinicrecords.portal.clinic_connections.resources import (ClinicConnectionsPage, WorkspaceConnectionRequests)
from clinicrecords.portal.clinic_connections.services import clinic_connections_factory
from clinicrecords.portal.console.resources import add_clinic_child
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    config.register_service_factory(clinic_connections_factory, iface=IClinicConnections)
    add_clinic_child(config, "connections", ClinicConnectionsPage)
    add_workspace_child(config, "connection-requests", WorkspaceConnectionRequests)
    config.scan(".views")
