"""/v1/clinics/{clinic_id}: traversal runs the key gate for the clinic the path names, resolves the clinic
through the key's reach, then binds the request's session to the clinic's schema — the one place a request's
tenant is chosen, and where its `ClinicScope` is built."""

import uuid

from zope.interface import implementer

from clinicrecords.clinics.interfaces import IReach
from clinicrecords.clinics.interfaces import IClinicContext
from clinicrecords.clinics.scope import ClinicScope
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.resources import ClinicChildren, Resource


def _uuid_or_none(segment):
    try:
        return uuid.UUID(segment)
    except ValueError:
        return None


class Clinics(Resource):
    # The key gate runs in __getitem__, once the clinic is named, so the key and its reach of that clinic are
    # read in one statement (docs/performance.md); `/v1/clinics` itself passes it when traversal stops here.
    gates_items = True

    def __getitem__(self, name):
        clinic_id = _uuid_or_none(name)
        identity = self.request.require_key(clinic_id)
        if clinic_id is None:
            raise KeyError(name)  # after the gate: a bad key hears 401 whatever the path
        clinic, granted = self.request.find_service(IReach, context=self).clinic(identity, clinic_id)
        bind_to_clinic(self.request.db, clinic.id)
        return ClinicResource(self, name, ClinicScope(identity, clinic, frozenset(granted), self.request.db))


@implementer(IClinicContext)
class ClinicResource(ClinicChildren, Resource):
    def __init__(self, parent, name, scope):
        super().__init__(parent, name)
        self.scope = scope


# /v1/clinics/{clinic_id}: the item of the clinics collection (documentation and route discovery).
Clinics.item_resource = ClinicResource
Clinics.item_parameter = "clinic_id"
