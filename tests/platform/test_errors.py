"""Every failure is problem+json in the spec's Problem shape, with a request id also in X-Request-Id."""

import json

import pytest
from pyramid.request import Request

from clinicrecords import ClinicRecordsRequest
from clinicrecords.api.body import _json_object
from clinicrecords.api.problems import Problem

PROBLEM_FIELDS = {"type", "title", "status", "code", "request_id"}


def assert_problem(response, status, code):
    assert response.status_int == status
    assert response.content_type == "application/problem+json"
    body = response.json
    assert PROBLEM_FIELDS <= body.keys()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"].endswith(code)
    assert body["request_id"] == response.headers["X-Request-Id"]
    return body


@pytest.mark.parametrize("path", ["/nope", "/v1", "/v1/nope", "/v1/clinics/not-a-uuid", "/v1/clinics/1234"])
def test_unknown_paths_are_404_problems(testapp, connected, path):
    response = testapp.get(path, headers=connected.headers, status=404)
    assert_problem(response, 404, "not_found")


def test_malformed_clinic_uuid_is_404_not_500(testapp, connected):
    response = testapp.get("/v1/clinics/%27%3B%20drop%20schema%20control/patients", headers=connected.headers,
                           status=404)
    assert_problem(response, 404, "not_found")


def test_wrong_method_is_405_with_allow(testapp, connected):
    response = testapp.delete("/v1/me", headers=connected.headers, status=405)
    body = assert_problem(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "GET"
    assert "GET" in body["detail"]


def test_missing_key_is_401_problem(testapp):
    assert_problem(testapp.get("/v1/me", status=401), 401, "invalid_key")


def test_request_ids_differ_per_request(testapp):
    first = testapp.get("/v1/me", status=401).json["request_id"]
    second = testapp.get("/v1/me", status=401).json["request_id"]
    assert first != second


def _request(body, content_type="application/json"):
    request = Request.blank("/", method="POST", body=body, content_type=content_type)
    return request


@pytest.mark.parametrize("body", [b"{", b"[1, 2]", b'"text"', b"12", b"\xff\xfe", b'{"a": NaN}',
                                  b"[" * 100000 + b"]" * 100000])
def test_bodies_that_are_not_json_objects_are_400(body):
    with pytest.raises(Problem) as info:
        _json_object(_request(body))
    assert info.value.code == "invalid_request"
    assert info.value.status == 400
    assert info.value.errors[0]["pointer"] == ""


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_non_json_bodies_are_415(content_type):
    with pytest.raises(Problem) as info:
        _json_object(_request(b"{}", content_type))
    assert (info.value.status, info.value.code) == (415, "unsupported_media_type")


def test_fhir_bodies_are_415_with_a_pointer_to_the_plain_shape():
    with pytest.raises(Problem) as info:
        _json_object(_request(b'{"resourceType": "AllergyIntolerance"}', "application/fhir+json"))
    assert info.value.code == "unsupported_media_type"
    assert "application/json" in info.value.detail


def test_numbers_are_exact_decimals():
    assert str(_json_object(_request(b'{"amount": 10.10}'))["amount"]) == "10.10"


def test_unexpected_errors_are_500_without_internals(app):
    from clinicrecords.api.errorviews import internal_error_view

    request = ClinicRecordsRequest.blank("/v1/me")
    request.registry = app.registry
    from clinicrecords.api.request_id import _request_id

    request.request_id = _request_id(request)
    response = internal_error_view(RuntimeError("SELECT secret FROM control.api_keys"), request)
    body = json.loads(response.body)
    assert response.status_int == 500
    assert body["code"] == "internal_error"
    assert "SELECT" not in response.text and "Traceback" not in response.text
