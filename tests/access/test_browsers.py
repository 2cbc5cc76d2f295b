"""The API is server-to-server: a request carrying Origin is refused before anything else, and no CORS header
is ever sent. The public OpenAPI document is exempt."""

import uuid

import pytest

from tests.access.helpers import bearer

ORIGIN = {"Origin": "https://app.example.com"}


def _no_cors(response):
    assert not [name for name in response.headers if name.lower().startswith("access-control-")]


@pytest.mark.parametrize("method, path", [
    ("GET", "/v1/me"),
    ("GET", "/v1/connections"),
    ("POST", "/v1/listings/search"),
    ("OPTIONS", "/v1/me"),
])
def test_a_browser_request_is_refused_even_with_a_valid_key(world, testapp, method, path):
    workspace_id, _ = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="live")
    response = testapp.request(path, method=method, headers={**bearer(key), **ORIGIN,
                                                             "Access-Control-Request-Method": "GET"},
                               expect_errors=True)
    assert (response.status_int, response.json["code"]) == (403, "browser_not_allowed")
    _no_cors(response)


def test_origin_comes_before_the_key_and_every_later_check(world, testapp, connected):
    # No key, a key in the query string, a clinic out of reach: Origin is answered first.
    assert testapp.get("/v1/me", headers=ORIGIN, status=403).json["code"] == "browser_not_allowed"
    assert testapp.get("/v1/me?api_key=ehr_live_x", headers=ORIGIN, status=403).json["code"] == "browser_not_allowed"
    out_of_reach = f"/v1/clinics/{uuid.uuid4()}/patients"
    assert testapp.get(out_of_reach, headers={**connected.headers, **ORIGIN},
                       status=403).json["code"] == "browser_not_allowed"
    # Even an empty Origin (some browsers send "null") is a browser.
    assert testapp.get("/v1/me", headers={**connected.headers, "Origin": "null"},
                       status=403).json["code"] == "browser_not_allowed"
    # The same request without Origin is answered normally, also without CORS headers.
    response = testapp.get("/v1/me", headers=connected.headers, status=200)
    _no_cors(response)


def test_browser_requests_are_not_counted(world, testapp):
    from tests.access.helpers import admin

    workspace_id, _ = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="live")
    testapp.get("/v1/me", headers={**bearer(key), **ORIGIN}, status=403)
    assert admin("usage", "show", "--workspace", str(workspace_id))[1]["requests"] == 0


def test_the_openapi_document_is_served_to_browsers_without_cors_headers(testapp):
    response = testapp.get("/v1/openapi.json", headers=ORIGIN, status=200)
    assert response.json["openapi"].startswith("3.")
    _no_cors(response)
