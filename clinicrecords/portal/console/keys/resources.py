from clinicrecords.portal.console.keys.interfaces import IClinicKeyService
from clinicrecords.portal.console.resources import ClinicPart
from clinicrecords.portal.keys.resources import KeyPage, KeysArea


class ClinicKey(KeyPage, ClinicPart):
    """/clinics/{id}/keys/{key_id}: one of the clinic's own keys."""


class ClinicKeys(KeysArea, ClinicPart):
    """/clinics/{id}/keys/{key_id}: the clinic's own unrevoked keys, by public key id."""

    service, item_resource = IClinicKeyService, ClinicKey
    layout = "clinicrecords.portal.console:templates/clinic_layout.jinja2"
    owner_words = "The clinic's"

    @property
    def owner_id(self):
        return self.clinic.id

    @property
    def path(self):
        return ("clinics", self.clinic.id, "keys")
