"""Connections in the clinic console (issue 19 item 3): an organization asks from the developer portal
(`/workspaces/{id}/connection-requests`), the clinic's admin approves permission by permission with an
optional expiry or declines, and later narrows or revokes (`/clinics/{id}/connections`)."""

from clinicrecords.portal.clinic_connections.interfaces import IClinicConnections
from clinicrecords.portal.clinic_connections.resources import (ClinicConnectionsPage,
                                                               WorkspaceConnectionRequests)
from clinicrecords.portal.clinic_connections.services import clinic_connections_factory


def includeme(config):
    config.register_service_factory(clinic_connections_factory, iface=IClinicConnections)
    config.add_clinic_child("connections", ClinicConnectionsPage)
    config.add_workspace_child("connection-requests", WorkspaceConnectionRequests)
    config.scan(".views")
