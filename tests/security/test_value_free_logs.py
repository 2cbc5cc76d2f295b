"""A failure's log carries no value a request sent (decision 0068): neither SQLAlchemy's bound parameters
nor PostgreSQL's DETAIL, which repeats a row's values. The failures are forced for real: a trigger refuses the
row as a unique violation whose DETAIL names the value, as PostgreSQL's own does."""

import configparser
import logging
import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from clinicrecords.db.tenancy import schema_name
from clinicrecords.observability.logs import LogFormatter
from tests.conftest import ROOT
from tests.portal.helpers import submit, with_workspace

SECRET = "Quillon Ardmore 7f3a"

FORCED_FAILURE = """
CREATE FUNCTION control.forced_failure() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE unique_violation USING MESSAGE = 'forced failure',
        DETAIL = 'Key (' || TG_ARGV[0] || ')=(' || (to_jsonb(NEW) ->> TG_ARGV[0]) || ') already exists.';
END $$
"""


def _refuse_inserts(engine, table, column):
    with engine.begin() as connection:
        connection.execute(text(FORCED_FAILURE))
        connection.execute(text(f"CREATE TRIGGER forced_failure BEFORE INSERT ON {table} FOR EACH ROW "
                                f"EXECUTE FUNCTION control.forced_failure('{column}')"))


def test_a_portal_failure_logs_no_value(app, engine, caplog):
    client, _ = with_workspace(app)
    _refuse_inserts(engine, "control.workspaces", "name")
    with caplog.at_level(logging.ERROR):
        submit(client.get("/portal/workspaces/new"), "workspace", name=SECRET, status=500)
    logged = caplog.text
    assert "unhandled error in portal request" in logged and "forced failure" in logged
    assert "Traceback (most recent call last)" in logged and "[SQL: INSERT INTO control.workspaces" in logged
    assert SECRET not in logged and "Quillon" not in logged


def test_an_api_failure_logs_no_value(world, testapp, engine, caplog):
    connected = world.connected()
    _refuse_inserts(engine, f"{schema_name(connected.clinic_id)}.patients", "given_name")
    with caplog.at_level(logging.ERROR):
        answer = testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients",
                                   {"given_name": SECRET, "family_name": "Ardmore", "birth_date": "1990-01-01"},
                                   headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())},
                                   status=500)
    assert answer.json["code"] == "internal_error"
    logged = caplog.text
    assert "unhandled error in request" in logged and "forced failure" in logged
    assert SECRET not in logged and "Quillon" not in logged


def test_every_other_logged_traceback_goes_through_the_value_free_formatter(engine):
    """What a process logs with a traceback elsewhere (a task, a sweep): the shipped ini files' formatter."""
    for name in ("production.ini", "development.ini", "testing.ini"):
        ini = configparser.ConfigParser(interpolation=None)
        ini.read(ROOT / name)
        assert ini["formatter_plain"]["class"] == "clinicrecords.observability.logs.LogFormatter", name
    _refuse_inserts(engine, "control.business_profiles", "legal_name")
    with pytest.raises(IntegrityError) as failed:
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO control.business_profiles (workspace_id, legal_name, website, country, contact_email,"
                " intended_use, status, submitted_at) VALUES (gen_random_uuid(), :name, 'https://x.example', 'GB',"
                " 'a@x.example', 'x', 'submitted', now())"), {"name": SECRET})
    def record():  # a record each: a formatter keeps the traceback's text on the record it formatted
        return logging.LogRecord("clinicrecords.tasks", logging.ERROR, __file__, 1, "task failed", None,
                                 (failed.type, failed.value, failed.tb))

    assert SECRET in logging.Formatter("%(message)s").format(record())  # what the default formatter writes
    for written in (LogFormatter("%(message)s").format(record()), LogFormatter("json").format(record())):
        assert "task failed" in written and "forced failure" in written and "Traceback" in written
        assert SECRET not in written
