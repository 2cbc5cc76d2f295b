import pytest

from clinicrecords.access.interfaces import ALL_PERMISSIONS
from clinicrecords.listings import network as listing_network
from tests.inventory.conftest import Till


class Network:
    """One organization's workspace, its live key, and pharmacies that list themselves to it."""

    def __init__(self, world, testapp, scopes=ALL_PERMISSIONS):
        self.world = world
        self.testapp = testapp
        self.workspace_id, self.sandbox_id = world.workspace()
        self.key = world.key(workspace_id=self.workspace_id, mode="live", scopes=scopes)
        self.test_key = world.key(workspace_id=self.workspace_id, mode="test", scopes=scopes)

    @property
    def headers(self):
        return {"Authorization": f"Bearer {self.key}"}

    def pharmacy(self, name="Harbour Pharmacy", lat=51.5072, lng=-0.1276, publish=True, connect=False):
        clinic_id = self.world.clinic(name, kind="pharmacy", lat=lat, lng=lng)
        till = Till(self.world, clinic_id)
        till.report()
        if publish:
            self.publish(clinic_id)
        if connect:
            self.world.grant(self.workspace_id, clinic_id)
        till.id = clinic_id
        return till

    def publish(self, clinic_id, workspace_id=None):
        with self.world.db() as db:
            listing_network.publish(db, clinic_id, workspace_id or self.workspace_id)

    def search(self, body, key=None, status=200):
        headers = {"Authorization": f"Bearer {key or self.key}"}
        return self.testapp.post_json("/v1/listings/search", body, headers=headers, status=status).json


@pytest.fixture
def network(world, testapp):
    return Network(world, testapp)
