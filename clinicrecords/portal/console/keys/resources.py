from clinicrecords.portal.console.keys.interfaces import IClinicKeyService
from clinicrecords.portal.console.resources import ClinicPart


class ClinicKey(ClinicPart):
    def __init__(self, parent, name, key):
        super().__init__(parent, name)
        self.key = key


class ClinicKeys(ClinicPart):
    """/clinics/{id}/keys/{key_id}: the clinic's own unrevoked keys, by public key id."""

    service, item_resource, item_parameter = IClinicKeyService, ClinicKey, "key_id"

    def __getitem__(self, key_id):
        key = self.request.find_service(self.service).key(self.clinic.id, key_id)
        if key is None:
            raise KeyError(key_id)
        return self.item_resource(self, key_id, key)
