from clinicrecords.portal.developer.workspaces.resources import WorkspacePart
from clinicrecords.portal.developer.keys.interfaces import IKeyService


class KeyResource(WorkspacePart):
    def __init__(self, parent, name, key):
        super().__init__(parent, name)
        self.key = key


class KeysCollection(WorkspacePart):
    """/workspaces/{id}/keys/{key_id}: the workspace's own unrevoked keys, by public key id."""

    service, item_resource, item_parameter = IKeyService, KeyResource, "key_id"

    def __getitem__(self, key_id):
        key = self.request.find_service(self.service).key(self.workspace.id, key_id)
        if key is None:
            raise KeyError(key_id)
        return self.item_resource(self, key_id, key)
