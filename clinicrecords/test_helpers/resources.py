"""/v1/test_helpers/clinics/{clinic_id}/<group>: traversal admits a test key on its own sandbox clinic only."""

from zope.interface import implementer

from clinicrecords.access.services import may_use_helpers
from clinicrecords.clinics.interfaces import IClinicContext
from clinicrecords.clinics.services import ClinicScope
from clinicrecords.clinics.services import find_clinic
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.resources import Branch, Resource, parse_uuid


class Submissions(Branch):
    """.../submissions/accept|decline"""


class Items(Branch):
    """.../items/review"""


class Referrals(Branch):
    """.../referrals/act"""


class Encounters(Branch):
    """.../encounters/touch|sign"""


class Coverages(Branch):
    """.../coverages/confirm|activate"""


class Stock(Branch):
    """.../stock/set"""


class Till(Branch):
    """.../till/report|stale"""


@implementer(IClinicContext)
class SandboxClinic(Branch):
    """The sandbox clinic, with its scope (the calling test key's own scopes): the permission map checks the
    helpers' permission against it again (not only in traversal), so no other path can ever grant them."""

    children = {"submissions": Submissions, "items": Items, "referrals": Referrals, "encounters": Encounters,
                "coverages": Coverages, "stock": Stock, "till": Till}

    def __init__(self, parent, name, scope):
        super().__init__(parent, name)
        self.scope = scope

    @property
    def clinic(self):
        return self.scope.clinic


class SandboxClinics(Resource):
    def __getitem__(self, name):
        identity = self.request.identity
        clinic = find_clinic(self.request.db, parse_uuid(name))
        # Another clinic, sandbox or not, answers like an absent one: 404 never tells which clinics exist.
        if not may_use_helpers(identity, clinic):
            raise KeyError(name)
        bind_to_clinic(self.request.db, clinic.id)
        return SandboxClinic(self, name, ClinicScope(identity, clinic, identity.scopes, self.request.db))


class TestHelpers(Branch):
    """/v1/test_helpers: no view answers above a sandbox clinic, and only `may_use_helpers` enters one, so
    live and clinic-owned keys get 404 on every path below."""

    __test__ = False  # not a pytest class
    children = {"clinics": SandboxClinics}


SandboxClinics.item_resource = SandboxClinic
SandboxClinics.item_parameter = "clinic_id"
