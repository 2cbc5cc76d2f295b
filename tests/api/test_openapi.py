"""The OpenAPI document: served without a key, identical to the committed docs/openapi.json, complete."""

import json

from clinicrecords.api.problem_codes import CODES
from clinicrecords.api.openapi import document, document_text
from clinicrecords.api.routes import nodes, operations
from tests.conftest import ROOT

COMMITTED = ROOT / "docs" / "openapi.json"


def test_served_without_a_key(testapp, registry):
    response = testapp.get("/v1/openapi.json", status=200)
    assert response.content_type == "application/json"
    served, committed = response.json, document(registry)
    assert served["openapi"] == "3.1.0"
    # What is served is the committed document but for the address its curl set-up names (test_reference_links).
    assert {**served, "info": None} == {**committed, "info": None}
    assert served["info"]["description"] == committed["info"]["description"].replace(
        "https://api.example.org", "http://localhost", 1)


def test_committed_copy_is_current(registry):
    assert COMMITTED.read_text(encoding="utf-8") == document_text(registry), (
        "docs/openapi.json is stale: run scripts/openapi and commit the result")


def test_every_route_of_the_tree_is_documented(registry):
    """A view registered on a resource of the tree without `openapi=` is a mistake caught here."""
    found = operations(registry)
    assert {(op.method, op.path) for op in found} >= {
        ("GET", "/v1/me"), ("GET", "/v1/connections"), ("GET", "/v1/openapi.json"),
        ("GET", "/v1/clinics/{clinic_id}/patients"), ("POST", "/v1/clinics/{clinic_id}/patients"),
        ("GET", "/v1/clinics/{clinic_id}/patients/{patient_id}"),
        ("PATCH", "/v1/clinics/{clinic_id}/patients/{patient_id}")}
    for op in found:
        assert op.doc.get("summary"), f"{op.method} {op.path} has no openapi={{'summary': ...}}"
        body_schema = op.options.get("body_schema")
        if body_schema is not None:
            assert body_schema.EXAMPLE, f"{op.method} {op.path}: {body_schema} has no EXAMPLE"
        if op.method in ("POST", "PATCH", "DELETE", "PUT") and not op.public:
            assert op.permission, f"{op.method} {op.path} has no permission"
    documented = document(registry)["paths"]
    for op in found:
        assert op.method.lower() in documented[op.path]


def test_collections_declare_their_items(registry):
    """Every collection whose class answers __getitem__ names its item resource and path parameter."""
    from clinicrecords.resources import ClinicChildren

    for node in nodes(registry):
        # A clinic's children come from add_clinic_collection, not from an item resource.
        if "__getitem__" in vars(node.resource) and not issubclass(node.resource, ClinicChildren):
            assert getattr(node.resource, "item_resource", None), f"{node.path}: declare item_resource"
            assert getattr(node.resource, "item_parameter", None), f"{node.path}: declare item_parameter"


def test_every_view_context_is_reachable_from_v1(registry):
    """A view on a resource class the tree never reaches (an item not declared on its collection) would be
    missing from the document and the contract tests."""
    from clinicrecords.api.routes import registered_views
    from clinicrecords.resources import Root

    resources = [node.resource for node in nodes(registry)]
    for intr, _ in registered_views(registry):
        context = intr["context"]
        if context is Root:  # /healthz, outside the API
            continue
        assert any(issubclass(resource, context) for resource in resources), (
            f"{context.__name__} is not reachable: declare it as some collection's item_resource")


def test_operations_carry_parameters_bodies_answers_and_errors(registry):
    paths = document(registry)["paths"]
    create = paths["/v1/clinics/{clinic_id}/patients"]["post"]
    assert [p["name"] for p in create["parameters"]] == ["clinic_id", "Idempotency-Key"]
    assert create["parameters"][1] == {**create["parameters"][1], "in": "header", "required": True}
    body = create["requestBody"]["content"]["application/json"]
    assert body["schema"] == {"$ref": "#/components/schemas/PatientCreate"}
    assert body["example"]["given_name"] == "Maya"
    assert "Location" in create["responses"]["201"]["headers"]
    conflict = create["responses"]["409"]["content"]["application/problem+json"]["schema"]["allOf"][1]
    assert conflict["properties"]["code"]["enum"] == ["idempotency_key_conflict", "idempotency_key_reused"]
    assert "415" in create["responses"] and create["x-permission"] == "patients:write"

    listed = paths["/v1/clinics/{clinic_id}/patients"]["get"]
    assert {p["name"] for p in listed["parameters"]} == {"clinic_id", "limit", "starting_after", "updated_since",
                                                       "family_name"}
    limit = next(p for p in listed["parameters"] if p["name"] == "limit")
    assert limit["schema"]["minimum"] == 1 and limit["schema"]["maximum"] == 100
    answer = listed["responses"]["200"]["content"]
    assert answer["application/json"]["schema"]["required"] == ["data", "has_more", "next_cursor"]
    assert answer["application/fhir+json"]["schema"] == {"$ref": "#/components/schemas/FhirSearchsetBundle"}

    item = paths["/v1/clinics/{clinic_id}/patients/{patient_id}"]
    assert item["get"]["parameters"][1]["example"]  # a sandbox patient's fixed id
    assert "406" in item["get"]["responses"] and "406" not in item["patch"]["responses"]
    assert "application/fhir+json" not in item["patch"]["responses"]["200"]["content"]


def test_security_and_codes(registry):
    doc = document(registry)
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {
        **doc["components"]["securitySchemes"]["bearerAuth"], "type": "http", "scheme": "bearer"}
    assert doc["security"] == [{"bearerAuth": []}]
    assert doc["paths"]["/v1/openapi.json"]["get"]["security"] == []
    assert "401" not in doc["paths"]["/v1/openapi.json"]["get"]["responses"]
    assert "401" in doc["paths"]["/v1/me"]["get"]["responses"]
    assert set(doc["x-error-codes"]) == set(CODES)
    assert set(doc["components"]["schemas"]["Problem"]["required"]) == {"type", "title", "status", "code",
                                                                        "request_id"}


def test_the_introduction_carries_the_error_code_table(registry):
    description = document(registry)["info"]["description"]
    for code, known in CODES.items():
        assert f"| {known.status} | `{code}` | {known.title} |" in description


def test_unknown_query_parameter_on_the_document_is_400(testapp):
    assert testapp.get("/v1/openapi.json?x=1", status=400).json["code"] == "invalid_request"


def test_document_is_plain_json(registry):
    text = document_text(registry)
    assert json.loads(text) == document(registry)
