"""Input limits: body sizes per route from Content-Length before anything is read, URL length, hostile JSON,
and the security headers on every answer."""

import configparser
import http.client
import io
import json
from pathlib import Path

import pytest
from webob import Request
from webtest.http import StopableWSGIServer

from clinicrecords.api.limits import SECURITY_HEADERS
from clinicrecords.patients.schemas import PatientCreate

MIB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]


class UnreadableBody:
    """A wsgi.input that fails the test if anything reads it."""

    def read(self, *args):
        raise AssertionError("the body was read")

    readline = readlines = read


def _post_unread(app, path, length, key):
    request = Request.blank(path, method="POST", headers={"Authorization": f"Bearer {key}",
                                                          "Content-Type": "application/json"})
    request.environ["CONTENT_LENGTH"] = str(length)
    request.environ["wsgi.input"] = UnreadableBody()
    return request.get_response(app)


def test_a_body_over_1_mib_is_refused_before_it_is_read(app, connected):
    response = _post_unread(app, f"/v1/clinics/{connected.clinic_id}/patients", MIB + 1, connected.key)
    assert response.status_int == 413
    assert json.loads(response.body)["code"] == "payload_too_large"
    assert response.headers["X-Request-Id"].startswith("req_")


def test_a_request_without_a_body_is_answered_without_reading_its_input(app, connected):
    request = Request.blank(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    request.environ.pop("CONTENT_LENGTH", None)
    request.environ["wsgi.input"] = UnreadableBody()
    request.environ["wsgi.input_terminated"] = True  # as waitress says of every request: read to its end
    assert request.get_response(app).status_int == 200


def test_a_body_without_a_declared_length_is_still_read(app, connected):
    # A server that passes a chunked body on as it came: no Content-Length, a Transfer-Encoding, a stream that
    # ends where the body does.
    body = json.dumps(PatientCreate.EXAMPLE).encode()
    request = Request.blank(f"/v1/clinics/{connected.clinic_id}/patients", method="POST", headers={
        **connected.headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked",
        "Idempotency-Key": "chunked"})
    request.environ.pop("CONTENT_LENGTH", None)
    request.environ["wsgi.input"] = io.BytesIO(body)
    request.environ["wsgi.input_terminated"] = True
    response = request.get_response(app)
    assert response.status_int == 201, response.body
    assert json.loads(response.body)["data"]["given_name"] == PatientCreate.EXAMPLE["given_name"]


def test_imports_may_send_10_mib_and_no_more(app, testapp, world):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    path = f"/v1/clinics/{clinic_id}/patient-imports"
    assert _post_unread(app, path, 10 * MIB + 1, key).status_int == 413
    # 2 MiB passes the general limit on this route: it is refused as JSON, not for its size.
    body = b'{"input_format": "json", "data": "' + b"x" * (2 * MIB) + b'"}'
    response = testapp.post(path, body, headers={"Authorization": f"Bearer {key}",
                                                 "Content-Type": "application/json"}, status="*")
    assert response.status_int != 413 and response.status_int < 500


def test_a_small_body_on_an_ordinary_route_is_still_served(testapp, connected):
    testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", PatientCreate.EXAMPLE,
                      headers={**connected.headers, "Idempotency-Key": "small"}, status=201)


def test_an_over_long_url_is_refused(testapp, connected):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?limit=1&x=" + "a" * 5000,
                           headers=connected.headers, status=414)
    assert response.json["code"] == "uri_too_long"


@pytest.mark.parametrize("body", [
    b'{"a": ' + b"[" * 100000 + b"]" * 100000 + b"}",
    b'{"given_name": 1e999999999}',
    b'{"given_name": ' + b"9" * 5000 + b"}",
    b'{"given_name": 0.' + b"1" * 100 + b"}",
])
def test_hostile_json_is_refused_cleanly(testapp, connected, body):
    response = testapp.post(f"/v1/clinics/{connected.clinic_id}/patients", body,
                            headers={**connected.headers, "Content-Type": "application/json",
                                     "Idempotency-Key": "hostile"}, status=400)
    assert response.json["code"] == "invalid_request"


@pytest.mark.parametrize("path,status", [("/v1/me", 200), ("/v1/nowhere", 404), ("/v1/me", 401)])
def test_every_answer_carries_the_security_headers(testapp, connected, path, status):
    headers = connected.headers if status != 401 else {"Authorization": "Bearer nope"}
    response = testapp.get(path, headers=headers, status=status)
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value


def _server_settings(ini):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / ini)
    return dict(parser["server:main"])


@pytest.mark.parametrize("ini", ["production.ini", "development.ini"])
def test_waitress_limits_are_configured(ini):
    server = _server_settings(ini)
    # Above the imports' 10 MiB, so that every route's own limit is the application's answer.
    assert int(server["max_request_body_size"]) > 10 * MIB
    assert int(server["max_request_header_size"]) <= 16384
    assert int(server["channel_timeout"]) <= 30
    assert server["ident"] == ""


@pytest.mark.commits  # waitress serves from its threads
def test_the_real_server_sends_no_banner_and_refuses_huge_headers(app, connected):
    settings = _server_settings("production.ini")
    server = StopableWSGIServer.create(
        app, host="127.0.0.1", port=0, threads=2, ident=settings["ident"] or None, expose_tracebacks=False,
        max_request_header_size=int(settings["max_request_header_size"]),
        max_request_body_size=int(settings["max_request_body_size"]),
        channel_timeout=int(settings["channel_timeout"]))
    try:
        answers = []
        for extra in ({}, {"X-Padding": "p" * 20000}):
            conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
            try:
                conn.request("GET", "/v1/me", headers={**connected.headers, **extra})
                answer = conn.getresponse()
                answer.read()
                answers.append((answer.status, answer.getheader("Server")))
            finally:
                conn.close()
        assert answers == [(200, None), (431, None)]
    finally:
        server.shutdown()
        server.runner.join(5)
