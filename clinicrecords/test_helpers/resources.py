"""/v1/test_helpers/clinics/{clinic_id}/<group>: traversal admits a test key on its own sandbox clinic only."""

from zope.interface import implementer

from clinicrecords.access.services import enter, reach_of_helpers
from clinicrecords.clinics.interfaces import IClinicContext
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
        # Entered like /v1/clinics/{clinic_id} (the key read with the clinic), with the helpers' reach: another
        # clinic, sandbox or not, answers like an absent one (404 never tells which clinics exist).
        return SandboxClinic(self, name, enter(self.request, parse_uuid(name), reach=reach_of_helpers))


class TestHelpers(Branch):
    """/v1/test_helpers: no view answers above a sandbox clinic, and only `reach_of_helpers` enters one, so
    live and clinic-owned keys get 404 on every path below."""

    __test__ = False  # not a pytest class
    children = {"clinics": SandboxClinics}


SandboxClinics.item_resource = SandboxClinic
SandboxClinics.item_parameter = "clinic_id"
