import uuid

from clinicrecords.portal.clinic_connections.interfaces import IClinicConnections
from clinicrecords.portal.console.resources import ClinicPart
from clinicrecords.portal.developer.workspaces.resources import WorkspacePart


def _uuid(name):
    try:
        return uuid.UUID(name)
    except ValueError:
        raise KeyError(name) from None


class PendingRequest(ClinicPart):
    def __init__(self, parent, name, connection_request):
        super().__init__(parent, name)
        self.connection_request = connection_request


class AnsweredRequest(ClinicPart):
    """A request to this clinic no longer waiting (approved, declined, or withdrawn by the organization): its
    page says so, and approving or declining it changes nothing."""

    def __init__(self, parent, name, connection_request):
        super().__init__(parent, name)
        self.connection_request = connection_request


class ClinicConnection(ClinicPart):
    def __init__(self, parent, name, connection):
        super().__init__(parent, name)
        self.connection = connection


class RequestsNode(ClinicPart):
    service, item_resource, item_parameter = IClinicConnections, (PendingRequest, AnsweredRequest), "request_id"

    def __getitem__(self, name):
        found = self.request.find_service(self.service).request_of_clinic(self.clinic.id, _uuid(name))
        if found is None:
            raise KeyError(name)
        return (PendingRequest if found.status == "pending" else AnsweredRequest)(self, name, found)


class ClinicConnectionsPage(ClinicPart):
    """/clinics/{id}/connections: requests (`…/requests/{request_id}`) and connections
    (`…/{workspace_id}`)."""

    children = {"requests": RequestsNode}
    service, item_resource, item_parameter = IClinicConnections, ClinicConnection, "workspace_id"

    def __getitem__(self, name):
        service = self.request.find_service(self.service)
        if name in self.children:
            return self.children[name](self, name)
        connection = service.connection(self.clinic.id, _uuid(name))
        if connection is None:
            raise KeyError(name)
        return self.item_resource(self, name, connection)


class WorkspaceConnectionRequests(WorkspacePart):
    """/workspaces/{id}/connection-requests: the organization asks a clinic for permissions."""
