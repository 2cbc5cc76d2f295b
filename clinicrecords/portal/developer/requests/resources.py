from clinicrecords.portal.developer.workspaces.resources import WorkspacePart


class RequestsPage(WorkspacePart):
    """/workspaces/{id}/requests?key=…&status=…&request_id=…&before=…"""
