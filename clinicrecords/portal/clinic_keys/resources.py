from clinicrecords.portal.clinic_keys.interfaces import IClinicKeyService
from clinicrecords.portal.staff.resources import ClinicPart


class ClinicKeys(ClinicPart):
    """/clinics/{id}/keys/{key_id}: the clinic's own unrevoked keys, by public key id."""

    def __getitem__(self, key_id):
        key = self.request.find_service(IClinicKeyService).key(self.clinic.id, key_id)
        if key is None:
            raise KeyError(key_id)
        return ClinicKey(self, key_id, key)


class ClinicKey(ClinicPart):
    def __init__(self, parent, name, key):
        super().__init__(parent, name)
        self.key = key
