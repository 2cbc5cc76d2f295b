"""/v1/clinics/{clinic_id}: traversal resolves the clinic through the key's reach, then binds the request's
session to the clinic's schema — the one place a request's tenant is chosen."""

from pyramid.authorization import DENY_ALL, Allow
from zope.interface import implementer

from clinicrecords.access.gate import require_some_permission_on
from clinicrecords.access.security_policy import permission_principal
from clinicrecords.clinics.interfaces import IClinicContext
from clinicrecords.clinics.scope import ClinicScope
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.resources import ClinicChildren, Resource, parse_uuid


class Clinics(Resource):
    def __getitem__(self, name):
        clinic_id = parse_uuid(name)
        reach = self.request.find_service(name="reach")
        clinic, granted = reach.clinic(self.request.identity, clinic_id)
        return ClinicResource(self, name, clinic, granted)


@implementer(IClinicContext)
class ClinicResource(ClinicChildren, Resource):
    def __init__(self, parent, name, clinic, granted):
        super().__init__(parent, name)
        self.clinic = clinic
        self.granted = granted
        bind_to_clinic(self.request.db, clinic.id)
        self.scope = ClinicScope(self.request.identity, clinic, frozenset(granted), self.request.db)
        self.request.environ["clinicrecords.clinic_id"] = str(clinic.id)

    def __getitem__(self, name):
        collection = super().__getitem__(name)
        require_some_permission_on(self.request, collection)
        return collection

    @property
    def __acl__(self):
        return [(Allow, permission_principal(p), p) for p in sorted(self.granted)] + [DENY_ALL]


# /v1/clinics/{clinic_id}: the item of the clinics collection (documentation and route discovery).
Clinics.item_resource = ClinicResource
Clinics.item_parameter = "clinic_id"
