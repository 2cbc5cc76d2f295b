"""Strict-Transport-Security: production answers every https request with it (API and portal, refusals too),
added by the application from the scheme waitress reports; plain http and development send none."""

import configparser
import http.client
import re
from pathlib import Path

import pytest
import webtest

from tests.common.serving import serving

ROOT = Path(__file__).resolve().parents[2]
HSTS = "max-age=31536000; includeSubDomains"
MIB = 1024 * 1024


def _ini(name):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / name)
    return parser


@pytest.fixture
def production_like(make_app):
    """The suite's application with production's HSTS setting."""
    return make_app(**{"security.hsts": _ini("production.ini")["app:main"]["security.hsts"]})


def _answers(app, connected, scheme):
    client = webtest.TestApp(app, extra_environ={"wsgi.url_scheme": scheme, "REMOTE_ADDR": "127.0.0.1"})
    return [
        client.get("/v1/me", headers=connected.headers, status=200),
        client.get("/v1/me", status=401),
        client.post(f"/v1/clinics/{connected.clinic_id}/patients", b"x" * (MIB + 1),
                    headers={**connected.headers, "Content-Type": "application/json"}, status=413),
        client.get("/v1/docs", status=200),
        client.get("/portal/login", status=200),
        client.get("/portal/no-such-page", status=404),
    ]


def test_production_answers_https_requests_with_hsts_on_both_faces(production_like, connected):
    for answer in _answers(production_like, connected, "https"):
        assert answer.headers.getall("Strict-Transport-Security") == [HSTS], answer.request.path


def test_production_sends_no_hsts_over_plain_http(production_like, connected):
    for answer in _answers(production_like, connected, "http"):
        assert "Strict-Transport-Security" not in answer.headers, answer.request.path


def test_development_and_testing_send_no_hsts_even_over_https(app, connected):
    for name in ("development.ini", "testing.ini"):
        assert _ini(name)["app:main"].get("security.hsts", "false") == "false", name
    for answer in _answers(app, connected, "https"):
        assert "Strict-Transport-Security" not in answer.headers, answer.request.path


def _hsts_through(url, headers):
    connection = http.client.HTTPConnection(url.removeprefix("http://"), timeout=10)
    try:
        connection.request("GET", "/v1/me", headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, response.headers.get_all("Strict-Transport-Security")
    finally:
        connection.close()


@pytest.mark.commits  # waitress serves from its threads
def test_https_is_what_the_trusted_proxy_says_through_the_real_server(production_like, connected):
    server = _ini("production.ini")["server:main"]
    with serving(production_like, trusted_proxy="127.0.0.1", trusted_proxy_count=int(server["trusted_proxy_count"]),
                 trusted_proxy_headers=server["trusted_proxy_headers"], clear_untrusted_proxy_headers=True) as url:
        assert _hsts_through(url, {**connected.headers, "X-Forwarded-Proto": "https"}) == (200, [HSTS])
        assert _hsts_through(url, {**connected.headers, "X-Forwarded-Proto": "http"}) == (200, None)
        assert _hsts_through(url, connected.headers) == (200, None)


def test_the_proxy_configurations_leave_hsts_to_the_application():
    """A second header from nginx would be a second, possibly different, policy."""
    deployment = (ROOT / "docs" / "deployment.md").read_text()
    nginx_block = deployment[deployment.index("## nginx"):deployment.index("## Faults")]
    rehearsal = (ROOT / "tests" / "rehearsal" / "nginx.py").read_text()
    for text in (nginx_block, rehearsal):
        assert not re.search(r"^\s*add_header\s+Strict-Transport-Security", text, re.IGNORECASE | re.MULTILINE)
