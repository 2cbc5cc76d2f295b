from clinicrecords.portal.workspaces.resources import WorkspacePart
from clinicrecords.portal.keys.interfaces import IKeyService


class KeysCollection(WorkspacePart):
    """/workspaces/{id}/keys/{key_id}: the workspace's own unrevoked keys, by public key id."""

    def __getitem__(self, key_id):
        key = self.request.find_service(IKeyService).key(self.workspace.id, key_id)
        if key is None:
            raise KeyError(key_id)
        return KeyResource(self, key_id, key)


class KeyResource(WorkspacePart):
    def __init__(self, parent, name, key):
        super().__init__(parent, name)
        self.key = key
