"""The webhook pages' two faces, one set of views and templates for both (views.py registers each view on each
face): a workspace's endpoints at /workspaces/{id}/webhooks (any member; test and live) and a clinic's own at
/clinics/{id}/webhooks (its admins; always live, as the clinic's key is). A face says whose endpoints they are
(`owner`), where its pages are (`path`), who may open them (`permission`) and the layout its pages sit in."""

from clinicrecords.events.interfaces import IWebhookEndpoints, Owner, WebhookError
from clinicrecords.portal.console.resources import ClinicPart
from clinicrecords.portal.web.resources import CLINIC_ADMIN, MEMBER
from clinicrecords.portal.webhooks.services import modes_of
from clinicrecords.portal.developer.workspaces.resources import WorkspacePart


class WebhooksPage:
    """What every webhook page knows of its face."""

    def url(self, *segments, **query):
        return self.request.portal_url(*self.path, *segments, **query)


class WebhooksArea(WebhooksPage):
    """…/webhooks/{endpoint_id}: only the owner's endpoints exist here. A face sets `item_resource` (its
    endpoint page), `permission`, `layout` and the properties `owner` and `path`."""

    service = IWebhookEndpoints
    item_parameter = "endpoint_id"

    @property
    def modes(self):
        return modes_of(self.owner)

    def url_in_mode(self, mode, *segments):
        """A page of the area naming the mode, where the face has more than one."""
        return self.url(*segments, mode=mode if len(self.modes) > 1 else None)

    def __getitem__(self, endpoint_id):
        try:  # a malformed id or another owner's endpoint: both simply not found
            endpoint = self.request.find_service(self.service).get(self.owner, endpoint_id)
        except WebhookError:
            raise KeyError(endpoint_id) from None
        return self.item_resource(self, endpoint_id, endpoint)


class EndpointPage(WebhooksPage):
    """…/webhooks/{endpoint_id}: one endpoint of the face's owner."""

    def __init__(self, parent, name, endpoint):
        super().__init__(parent, name)
        self.endpoint = endpoint
        self.endpoint_id = endpoint["endpoint_id"]
        self.area = parent
        self.owner = parent.owner
        self.layout = parent.layout
        self.path = (*parent.path, self.endpoint_id)


class WorkspaceEndpoint(EndpointPage, WorkspacePart):
    pass


class WorkspaceWebhooks(WebhooksArea, WorkspacePart):
    item_resource = WorkspaceEndpoint
    permission = MEMBER
    layout = "clinicrecords.portal.developer.workspaces:templates/workspace_layout.jinja2"

    @property
    def owner(self):
        return Owner.workspace(self.workspace.id)

    @property
    def path(self):
        return ("workspaces", self.workspace.id, "webhooks")


class ClinicEndpoint(EndpointPage, ClinicPart):
    pass


class ClinicWebhooks(WebhooksArea, ClinicPart):
    item_resource = ClinicEndpoint
    permission = CLINIC_ADMIN
    layout = "clinicrecords.portal.console:templates/clinic_layout.jinja2"

    @property
    def owner(self):
        return Owner.clinic(self.clinic.id)

    @property
    def path(self):
        return ("clinics", self.clinic.id, "webhooks")


FACES = (WorkspaceWebhooks, ClinicWebhooks)
