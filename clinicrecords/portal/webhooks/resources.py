from clinicrecords.events.interfaces import IWebhookEndpoints, Owner, WebhookError
from clinicrecords.portal.workspaces.resources import WorkspacePart


class WebhooksCollection(WorkspacePart):
    """/workspaces/{id}/webhooks/{endpoint_id}: only this workspace's endpoints exist here."""

    @property
    def owner(self):
        return Owner.workspace(self.workspace.id)

    def __getitem__(self, endpoint_id):
        try:  # a malformed id or another owner's endpoint: both simply not found
            endpoint = self.request.find_service(IWebhookEndpoints).get(self.owner, endpoint_id)
        except WebhookError:
            raise KeyError(endpoint_id) from None
        return EndpointResource(self, endpoint_id, endpoint)


class EndpointResource(WorkspacePart):
    def __init__(self, parent, name, endpoint):
        super().__init__(parent, name)
        self.endpoint = endpoint
        self.endpoint_id = endpoint["endpoint_id"]
        self.owner = parent.owner
