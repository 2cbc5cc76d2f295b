"""/v1/test_helpers/clinics/{clinic_id}/<group>: traversal admits a test key on its own sandbox clinic only."""

from pyramid.authorization import DENY_ALL, Allow, Authenticated

from clinicrecords.access.permissions import TEST_HELPERS
from clinicrecords.clinics.models import Clinic
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.resources import Branch, Resource, parse_uuid


def may_use_helpers(identity, clinic):
    """A workspace's test key on that workspace's own sandbox clinic; never a live or clinic-owned key."""
    return (identity is not None and identity.is_test and identity.clinic_id is None
            and clinic is not None and clinic.sandbox_of_workspace_id is not None
            and clinic.id == identity.sandbox_clinic_id
            and clinic.sandbox_of_workspace_id == identity.workspace_id)


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


class SandboxClinic(Branch):
    children = {"submissions": Submissions, "items": Items, "referrals": Referrals, "encounters": Encounters,
                "coverages": Coverages, "stock": Stock, "till": Till}

    def __init__(self, parent, name, clinic):
        super().__init__(parent, name)
        self.clinic = clinic
        bind_to_clinic(self.request.db, clinic.id)
        self.request.environ["clinicrecords.clinic_id"] = str(clinic.id)

    @property
    def __acl__(self):
        # Checked again here (not only in traversal), so no other path to these views can ever grant them.
        if may_use_helpers(self.request.identity, self.clinic):
            return [(Allow, Authenticated, TEST_HELPERS), DENY_ALL]
        return [DENY_ALL]


class SandboxClinics(Resource):
    def __getitem__(self, name):
        clinic = self.request.db.get(Clinic, parse_uuid(name))
        # Another clinic, sandbox or not, answers like an absent one: 404 never tells which clinics exist.
        if not may_use_helpers(self.request.identity, clinic):
            raise KeyError(name)
        return SandboxClinic(self, name, clinic)


class TestHelpers(Branch):
    """/v1/test_helpers: no view answers above a sandbox clinic, and only `may_use_helpers` enters one, so
    live and clinic-owned keys get 404 on every path below."""

    __test__ = False  # not a pytest class
    children = {"clinics": SandboxClinics}


SandboxClinics.item_resource = SandboxClinic
SandboxClinics.item_parameter = "clinic_id"
