"""One JSON line per request: request_id, method, route, status, duration, clinic and key when known —
never a key secret, a query string, a body or patient data."""

import json
import logging
import uuid

import pytest

from clinicrecords.access.keys import parse_key
from clinicrecords.patients.schemas import PatientCreate


@pytest.fixture
def log_lines(caplog):
    caplog.set_level(logging.INFO, logger="clinicrecords.request")

    def lines():
        return [json.loads(r.getMessage()) for r in caplog.records if r.name == "clinicrecords.request"]

    return lines


def test_a_line_per_request_with_its_fields(testapp, connected, log_lines):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    [line] = log_lines()
    assert line["request_id"] == response.headers["X-Request-Id"]
    assert (line["method"], line["route"], line["status"]) == ("GET", "/v1/clinics/{clinic_id}/patients", 200)
    assert line["clinic_id"] == str(connected.clinic_id)
    assert line["key_id"] == parse_key(connected.key).key_id
    assert isinstance(line["duration_ms"], float)


def test_failures_are_logged_with_their_status(testapp, log_lines):
    testapp.get("/v1/me", status=401)
    assert [line["status"] for line in log_lines()] == [401]


def test_no_secret_query_body_or_patient_data_in_the_log(testapp, connected, caplog, log_lines):
    secret = parse_key(connected.key).secret
    testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", PatientCreate.EXAMPLE,
                      headers={**connected.headers, "Idempotency-Key": "log-test"}, status=201)
    testapp.get(f"/v1/me?api_key={connected.key}", status=401)
    text = caplog.text
    for forbidden in (secret, connected.key, PatientCreate.EXAMPLE["family_name"], "api_key", "log-test"):
        assert forbidden not in text
    assert len(log_lines()) == 2


def test_requests_refused_before_the_tweens_run_are_logged_too(testapp, log_lines):
    too_long = testapp.get("/v1/me?" + "x" * 5000, status=414)
    too_large = testapp.post("/v1/me", b"{}", headers={"Content-Type": "application/json",
                                                       "Content-Length": str(2 * 1024 * 1024)},
                             status=413, expect_errors=True)
    lines = log_lines()
    assert [(line["status"], line["route"]) for line in lines] == [(414, "/v1/me"), (413, "/v1/me")]
    assert [line["request_id"] for line in lines] == [too_long.headers["X-Request-Id"],
                                                      too_large.headers["X-Request-Id"]]
    assert "x" * 50 not in json.dumps(lines)


def test_a_route_template_folds_ids_and_any_key_written_into_the_path():
    from clinicrecords.api.request_log import route_template

    clinic, item = uuid.uuid4(), uuid.uuid4()
    assert route_template(f"/v1/clinics/{clinic}/allergies/{item}") == "/v1/clinics/{id}/allergies/{id}"
    assert route_template(f"/v1/clinics/{clinic.hex}/x") == "/v1/clinics/{id}/x"
    for pasted in ("ehr_live_0123456789abcdef_" + "a" * 48, "EHR_TEST_anything", "eHr_x"):
        assert route_template(f"/v1/clinics/{clinic}/{pasted}/more") == "/v1/clinics/{id}/{key}/more"
