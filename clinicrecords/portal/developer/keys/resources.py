from clinicrecords.portal.developer.keys.interfaces import IKeyService
from clinicrecords.portal.developer.workspaces.resources import WorkspacePart
from clinicrecords.portal.keys.resources import KeyPage, KeysArea


class KeyResource(KeyPage, WorkspacePart):
    """/workspaces/{id}/keys/{key_id}: one of the workspace's keys."""


class KeysCollection(KeysArea, WorkspacePart):
    """/workspaces/{id}/keys/{key_id}: the workspace's own unrevoked keys, by public key id."""

    service, item_resource = IKeyService, KeyResource
    layout = "clinicrecords.portal.developer.workspaces:templates/workspace_layout.jinja2"
    owner_words = "Your"

    @property
    def owner_id(self):
        return self.workspace.id

    @property
    def path(self):
        return ("workspaces", self.workspace.id, "keys")
