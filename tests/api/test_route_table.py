"""`clinicrecords-admin CONFIG routes` prints every route as JSON (decision 0078): method, path, resource, view,
permission (null only for the public routes) and service; docs/routes.md is the same table, kept current."""

import importlib

import pytest

from clinicrecords.api.openapi import document
from clinicrecords.api.route_table import markdown
from clinicrecords.services import registered_services
from tests.common.cli import ok
from tests.conftest import ROOT

FIELDS = {"method", "path", "resource", "view", "permission", "service"}
COMMITTED = ROOT / "docs" / "routes.md"


@pytest.fixture(scope="module")
def routes():
    return ok("routes")["routes"]


def _resolve(dotted):
    module, _, name = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError:  # a method of a class
        return getattr(_resolve(module), name)


def test_every_route_is_printed_with_its_six_fields(routes, registry):
    assert all(set(route) == FIELDS for route in routes)
    printed = {(route["method"], route["path"]) for route in routes}
    documented = {(method.upper(), path) for path, operations in document(registry)["paths"].items()
                  for method in operations if method != "parameters"}
    assert {(method, path) for method, path in printed if path.startswith("/v1/")} == documented
    assert {("GET", "/healthz"), ("GET", "/portal/login"), ("POST", "/portal/workspaces/{workspace_id}/keys/new"),
            ("GET", "/portal/clinics/{clinic_id}/queue/{submission_id}")} <= printed


def test_a_route_names_its_real_view_resource_and_service(routes, registry):
    services = {iface.__identifier__ + (f"[{name}]" if name else "")
                for iface, name, _ in registered_services(registry)}
    for route in routes:
        assert callable(_resolve(route["view"])) and isinstance(_resolve(route["resource"]), type)
        assert route["service"] is None or route["service"] in services, route
    by_route = {(route["method"], route["path"]): route for route in routes}
    assert by_route["GET", "/v1/clinics/{clinic_id}/allergies/{allergy_id}"] == {
        "method": "GET", "path": "/v1/clinics/{clinic_id}/allergies/{allergy_id}",
        "resource": "clinicrecords.clinical.resources.AllergyResource",
        "view": "clinicrecords.clinical.views.get_allergy", "permission": "allergies:read",
        "service": "clinicrecords.clinical.interfaces.IChartItems[allergy]"}
    assert by_route["POST", "/v1/clinics/{clinic_id}/patients"]["service"] == \
        "clinicrecords.patients.interfaces.IPatientService"
    assert by_route["GET", "/v1/me"]["service"] is None


def _fixed_gets(routes, public):
    return sorted({route["path"] for route in routes if route["method"] == "GET" and "{" not in route["path"]
                   and (route["permission"] is None) == public})


def test_a_route_without_a_permission_is_public_and_every_other_asks_who_calls(routes, testapp):
    """Asked with no key and no session: every route printed without a permission answers, and every other
    refuses (the API: 401 invalid_key; the portal: to the log-in page)."""
    public = _fixed_gets(routes, public=True)
    assert {"/healthz", "/v1/openapi.json", "/portal/login", "/portal/static/portal.css"} <= set(public)
    for path in public:
        response = testapp.get(path, expect_errors=True)
        assert response.status_int not in (401, 403) and "/login" not in response.headers.get("Location", ""), path
    guarded = _fixed_gets(routes, public=False)
    assert {"/v1/me", "/portal/", "/portal/workspaces"} <= set(guarded)
    for path in guarded:
        response = testapp.get(path, expect_errors=True)
        if path.startswith("/v1/"):
            assert (response.status_int, response.json["code"]) == (401, "invalid_key"), path
        else:
            assert response.status_int in (302, 303) and "/portal/login" in response.headers["Location"], path


def test_docs_routes_md_is_the_same_table(registry, routes):
    assert COMMITTED.read_text(encoding="utf-8") == markdown(registry), \
        "docs/routes.md is stale: run scripts/routes and commit the result"
    text = COMMITTED.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == len(routes)
