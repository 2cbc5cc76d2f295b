"""The design's floor on the pipelined protocol (`python -m bench.design_floor`'s `design_pipelined`): GET one's
count, the BEGIN of the clinic's transaction, its setting and the read travel in one message, the audit row with
the COMMIT; the count refuses in SQL, so a refused request runs nothing after it.

Committed for real, like the round-trip pins: the floor's count commits on its own, which the suite's joined
transaction cannot show."""

import datetime
import time
import uuid

import pytest
import webtest
from sqlalchemy import text

from bench.design_floor import design_app
from clinicrecords.clinical.models import Allergy
from clinicrecords.db.round_trips import RoundTrips
from clinicrecords.db.tenancy import schema_name
from tests.common.clinical import add_patient, clinic_db
from tests.common.world import World
from tests.platform.test_round_trips import per_request

pytestmark = [pytest.mark.commits, pytest.mark.usefixtures("app")]


@pytest.fixture
def floor(make_app, settings):
    world = World(make_app().registry)
    connected = world.connected()
    patient_id = add_patient(world, connected.clinic_id)
    with clinic_db(world, connected.clinic_id) as db:
        allergy = Allergy(id=uuid.uuid4(), patient_id=patient_id, substance_text="Pollen")
        db.add(allergy)
    built = []

    def build(**options):
        app = design_app(settings, connected.key, **options)
        built.append(app.registry["db.engine"])
        client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        return client, app.registry["db.engine"]

    yield build, connected, f"/v1/clinics/{connected.clinic_id}/allergies/{allergy.id}", allergy.id
    for engine in built:
        engine.dispose()


def _counted_this_minute(engine, connected):
    minute = datetime.datetime.now(datetime.UTC).replace(second=0, microsecond=0)
    with engine.connect() as connection:
        return connection.scalar(text(
            "SELECT c.count FROM control.rate_limit_counters c JOIN control.api_keys k ON k.id = c.api_key_id "
            "WHERE k.workspace_id = :workspace AND c.window_start = :minute"),
            {"workspace": connected.workspace_id, "minute": minute})


def _audited_reads(engine, connected):
    with engine.connect() as connection:
        return connection.scalar(text(
            f'SELECT count(*) FROM "{schema_name(connected.clinic_id)}".audit_log '
            "WHERE owner_id = :workspace AND method = 'GET'"), {"workspace": connected.workspace_id})


def _with_a_minute_ahead():
    """Waits, if it must, for a minute with time left in it: the limit's window must not turn mid-test."""
    now = datetime.datetime.now(datetime.UTC)
    if now.second > 50:
        time.sleep(61 - now.second)


def test_get_one_sends_its_count_and_read_in_one_message_and_its_audit_row_with_the_commit(floor):
    build, connected, url, allergy_id = floor
    headers = {"Authorization": f"Bearer {connected.key}"}
    pipelined, engine = build(pipelined=True)
    design, design_engine = build()
    with RoundTrips(engine) as trips:
        assert per_request(pipelined, trips, lambda: pipelined.get(url, headers=headers)) == 2
    with RoundTrips(design_engine) as trips:
        assert per_request(design, trips, lambda: design.get(url, headers=headers)) == 3
    assert pipelined.get(url, headers=headers).json["data"]["id"] == str(allergy_id)
    assert _audited_reads(engine, connected) == 13 + 13 + 1  # per_request's 13 on each protocol, and this one


def test_a_request_over_the_limit_is_refused_by_its_count_and_nothing_after_it_runs(floor):
    build, connected, url, _ = floor
    headers = {"Authorization": f"Bearer {connected.key}"}
    client, engine = build(pipelined=True, per_minute=2)
    _with_a_minute_ahead()
    for _ in range(2):
        client.get(url, headers=headers, status=200)
    client.get(url, headers=headers, status=429)
    # The refused count rolled back with its own transaction, and no audit row was written for it.
    assert _counted_this_minute(engine, connected) == 2
    assert _audited_reads(engine, connected) == 2
