"""One statement text for every clinic (decision 0106): a connection serving requests for several clinics
prepares each statement once, not once per clinic, and each answer still comes from its own clinic.

Committed for real, through an application with a pool of one connection: the backend that served every
request is the one whose prepared statements are read afterwards.
"""

import re

import pytest
import webtest
from sqlalchemy import text

from tests.common.clinical import add_patient
from tests.common.world import World

pytestmark = pytest.mark.commits

SCHEMA = re.compile(r"clinic_[0-9a-f]{32}")
PATIENT_READ = re.compile(r"FROM (clinic_[0-9a-f]{32}\.)?patients\b")
RUNS = 7  # psycopg prepares a statement on its sixth execution on a connection


def _prepared(engine):
    with engine.connect() as connection:  # the pool's only connection
        return connection.scalars(text("SELECT statement FROM pg_prepared_statements")).all()


def test_serving_several_clinics_prepares_each_statement_once(make_app):
    app = make_app(**{"database.pool_size": "1", "database.max_overflow": "0", "database.pool_max_uses": "0"})
    world = World(app.registry)
    served = []
    for _ in range(3):
        connected = world.connected()
        served.append((connected, str(add_patient(world, connected.clinic_id))))
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})

    def serve(clinics):
        for _ in range(RUNS):
            for connected, patient_id in clinics:
                answer = client.get(f"/v1/clinics/{connected.clinic_id}/patients/{patient_id}",
                                    headers=connected.headers)
                assert answer.json["data"]["id"] == patient_id  # its own clinic's row, whichever clinic ran before

    def patient_reads():
        return {statement for statement in _prepared(app.registry["db.engine"]) if PATIENT_READ.search(statement)}

    serve(served[:1])
    one_clinic = patient_reads()
    serve(served)
    three_clinics = patient_reads()
    assert one_clinic and three_clinics, "psycopg prepared no read: the comparison would prove nothing"
    assert [statement for statement in three_clinics if SCHEMA.search(statement)] == []  # no clinic in any text
    assert three_clinics <= one_clinic  # the first clinic's statements served the other two
