"""The log: one JSON object per line with `format = json` (production's), every traceback value-free, and no
key, secret, email or patient data in any line, whoever wrote it."""

import datetime
import io
import json
import logging

import pytest

from clinicrecords.access.keys import parse_key
from clinicrecords.db import security_events
from clinicrecords.observability.logs import LogFormatter
from clinicrecords.patients.schemas import PatientCreate
from tests.events.support import Receiver, emit_events


@pytest.fixture
def json_log():
    """Everything the application logs at INFO and above, through the formatter production.ini names."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LogFormatter("json"))
    logger = logging.getLogger("clinicrecords")
    saved = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(saved)


def lines(stream):
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_request_is_one_json_object_with_its_fields(testapp, connected, json_log):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    [line] = [line for line in lines(json_log) if line["logger"] == "clinicrecords.request"]
    assert {"time", "level", "logger", "message"} <= set(line)
    assert datetime.datetime.fromisoformat(line["time"]).tzinfo is not None
    assert (line["level"], line["message"]) == ("INFO", "request")
    assert line["request_id"] == response.headers["X-Request-Id"]
    # The route template, as the metrics' `route` label and the request's span name it.
    assert (line["method"], line["route"], line["status"]) == ("GET", "/v1/clinics/{clinic_id}/patients", 200)
    assert line["clinic_id"] == str(connected.clinic_id)
    assert line["key_id"] == parse_key(connected.key).key_id
    assert isinstance(line["duration_ms"], float)


def test_no_key_secret_email_or_patient_data_in_any_line(testapp, world, connected, json_log):
    patient = {**PatientCreate.EXAMPLE, "family_name": "Quillonbrae", "email": "quillon.brae@example.org"}
    testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", patient,
                      headers={**connected.headers, "Idempotency-Key": "log-json-test"}, status=201)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?family_name=Quillonbrae", headers=connected.headers)
    testapp.get(f"/v1/me?api_key={connected.key}", status=401)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/{connected.key}", headers=connected.headers, status=404)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients/Quillonbrae", headers=connected.headers, status="*")
    logging.getLogger("clinicrecords.test").warning("forwarded for %s with %s", "quillon.brae@example.org",
                                                    connected.key)
    written = json_log.getvalue()
    found = lines(json_log)
    requests = [line for line in found if line["logger"] == "clinicrecords.request"]
    assert [line["route"] for line in requests] == [
        "/v1/clinics/{clinic_id}/patients", "/v1/clinics/{clinic_id}/patients", "/v1/me", "unmatched",
        "/v1/clinics/{clinic_id}/patients/{patient_id}"]
    assert "forwarded for {email} with {key}" in written
    for forbidden in (parse_key(connected.key).secret, connected.key, "quillon.brae@example.org", "Quillonbrae",
                      "log-json-test", "api_key"):
        assert forbidden not in written, forbidden


def test_one_line_per_webhook_attempt_with_ids_only(world, json_log):
    with Receiver(answers=[503], default=204) as receiver:
        clinic_id = world.clinic()
        world.webhook(clinic_id=clinic_id, url=receiver.url)
        emit_events(world, clinic_id)
    [line] = [line for line in lines(json_log) if line["message"] == "webhook attempt"]
    assert (line["level"], line["outcome"], line["status_code"]) == ("WARNING", "retry", 503)
    assert line["delivery_id"] and line["duration_ms"] >= 0
    assert receiver.url not in json_log.getvalue()


def test_a_traceback_is_one_field_of_its_line_and_keeps_no_value():
    try:
        raise ValueError("quillon.brae@example.org is taken")
    except ValueError:
        record = logging.LogRecord("clinicrecords.tasks", logging.ERROR, __file__, 1, "task failed", None,
                                   __import__("sys").exc_info())
    line = json.loads(LogFormatter("json").format(record))
    assert line["message"] == "task failed"
    assert "Traceback" in line["traceback"] and "ValueError: {email} is taken" in line["traceback"]


def test_the_plain_format_scrubs_too():
    record = logging.LogRecord("clinicrecords.mail", logging.INFO, __file__, 1, "to %s", ("ada@example.org",), None)
    assert LogFormatter("%(levelname)s %(message)s").format(record) == "INFO to {email}"


def test_a_security_event_s_json_line_is_read_back_by_a_restore(tmp_path, json_log):
    at = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    event = {"at": at.isoformat(), "kind": security_events.KEY_REVOKED, "key_id": "k_123"}
    logging.getLogger("clinicrecords.security_events").info("security event %s", json.dumps(event))
    [line] = lines(json_log)
    assert (line["message"], line["kind"], line["key_id"]) == ("security event", event["kind"], "k_123")
    stream = tmp_path / "log.jsonl"
    stream.write_text(json_log.getvalue())
    [read] = security_events.read_after(stream, at - datetime.timedelta(seconds=1))
    assert (read["kind"], read["key_id"]) == (event["kind"], "k_123")
