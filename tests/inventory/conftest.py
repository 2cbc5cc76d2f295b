import datetime

import pytest

from clinicrecords.clinics.services import open_clinic
from clinicrecords.inventory import bands, services
from tests.common.cli import admin, ok  # noqa: F401  (re-exported: this context's tests import them from here)
from tests.common.world import Connected

AGE = datetime.timedelta(minutes=bands.DEFAULT_MAX_AGE_MINUTES)


class Till:
    """Staff actions on one clinic through the same services as the CLI, with a chosen clock."""

    def __init__(self, world, clinic_id):
        self.world = world
        self.clinic_id = clinic_id

    @property
    def projection(self):
        return services.network_projection(self.world.registry)

    def _run(self, action):
        with self.world.db() as db:
            return action(db, open_clinic(db, self.clinic_id))

    def item(self, name="Amoxicillin 500 mg capsules", quantity=None, linked=True, **kwargs):
        item_id = self._run(lambda db, clinic: services.create_item(db, self.projection, clinic, name=name,
                                                                    linked=linked, **kwargs).id)
        if quantity is not None:
            self.stock(item_id, quantity)
        return item_id

    def stock(self, item_id, quantity, now=None):
        self._run(lambda db, clinic: services.set_stock(db, self.projection, clinic, item_id, quantity, AGE, now=now))

    def link(self, item_id, linked=True):
        self._run(lambda db, clinic: services.set_linked(db, self.projection, clinic, item_id, linked))

    def report(self, now=None):
        self._run(lambda db, clinic: services.report_till(db, self.projection, clinic, AGE, now=now))

    def stale(self, now=None):
        self._run(lambda db, clinic: services.mark_till_stale(db, self.projection, clinic, AGE, now=now))

    def events(self, types=None):
        from sqlalchemy import select

        from clinicrecords.events.models import Event

        with self.world.db() as db:
            open_clinic(db, self.clinic_id)
            rows = db.scalars(select(Event).order_by(Event.seq)).all()
            return [(e.type, e.subject_id, e.data) for e in rows if types is None or e.type in types]


def _pharmacy(world, recording):
    clinic_id = world.clinic("Harbour Pharmacy", kind="pharmacy", lat=51.5072, lng=-0.1276)
    workspace_id, sandbox_id = world.workspace()
    world.grant(workspace_id, clinic_id)
    if recording:
        world.webhook(clinic_id=clinic_id)
    connected = Connected(clinic_id, workspace_id, sandbox_id, world.key(workspace_id=workspace_id, mode="live"))
    till = Till(world, connected.clinic_id)
    till.report()
    connected.till = till
    return connected


@pytest.fixture
def pharmacy(world):
    """A pharmacy whose till has just reported, with a connected live key holding every permission."""
    return _pharmacy(world, recording=False)


@pytest.fixture
def recording_pharmacy(world):
    """THE clinic of every assertion about events: it has a webhook endpoint, so its events are recorded
    (spec, Events rule 5) from before its till's first report."""
    return _pharmacy(world, recording=True)
