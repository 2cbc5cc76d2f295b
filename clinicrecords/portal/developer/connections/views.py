from pyramid.view import view_config

from clinicrecords import clock
from clinicrecords.portal.developer.connections.interfaces import IConnectionsView
from clinicrecords.portal.web.resources import MEMBER
from clinicrecords.portal.developer.workspaces.resources import WorkspacePart


class ConnectionsPage(WorkspacePart):
    """/workspaces/{id}/connections"""


@view_config(route_name="portal", context=ConnectionsPage, request_method="GET",
             renderer="clinicrecords.portal.developer.connections:templates/connections.jinja2", permission=MEMBER)
def connections(context, request):
    return {"table": request.find_service(IConnectionsView).table(context.workspace.id),
            "now": clock.now()}
