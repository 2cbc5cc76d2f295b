"""Every boolean field of every request body takes JSON `true` and `false` only, as the document's
`"type": "boolean"` says: 0, 1, 0.0, "yes", "true", "false" (and null where the field is not nullable) are
400 invalid_request naming the field, never read as a boolean.

Generic over the OpenAPI document built from the registered routes, so a boolean added later is covered."""

import copy
import uuid

from clinicrecords.api.openapi import document
from tests.api.test_examples import _url

NOT_BOOLEANS = [0, 1, 0.0, 1.0, "yes", "true", "false", "", [], {}]


def _booleans(schema, components, path=(), seen=frozenset()):
    """(path, nullable) of every boolean property under `schema`; an array's items are at index 0."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        if name not in seen:
            yield from _booleans(components[name], components, path, seen | {name})
        return
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "boolean" in kinds:
        yield path, "null" in kinds
    for name, member in schema.get("properties", {}).items():
        yield from _booleans(member, components, (*path, name), seen)
    if isinstance(schema.get("items"), dict):
        yield from _booleans(schema["items"], components, (*path, 0), seen)
    for combined in ("allOf", "oneOf", "anyOf"):
        for member in schema.get(combined, []):
            yield from _booleans(member, components, path, seen)


def _boolean_fields(registry):
    spec = document(registry)
    components = spec["components"]["schemas"]
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            for field, nullable in _booleans(body["schema"], components):
                yield path, method, operation, body, field, nullable


def _with(example, field, value):
    body = copy.deepcopy(example)
    container = body
    for step in field[:-1]:
        container = container[step]
    container[field[-1]] = value
    return body


def _pointer(field):
    return "".join(f"/{step}" for step in field)


def test_the_document_has_boolean_body_fields(registry):
    named = {(method, path, field) for path, method, _, _, field, _ in _boolean_fields(registry)}
    assert ("post", "/v1/clinics/{clinic_id}/care-providers", ("is_primary",)) in named
    assert ("post", "/v1/clinics/{clinic_id}/allergies", ("no_known_allergies",)) in named


def test_every_boolean_body_field_refuses_what_is_not_a_boolean(world, testapp, registry):
    workspace_id, sandbox_clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    failures = []
    for path, method, operation, body, field, nullable in _boolean_fields(registry):
        url = _url(path, operation, sandbox_clinic_id)
        for value in NOT_BOOLEANS + ([] if nullable else [None]):
            headers = {"Authorization": f"Bearer {key}"}
            if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in operation["parameters"]):
                headers["Idempotency-Key"] = str(uuid.uuid4())
            response = getattr(testapp, f"{method}_json")(url, _with(body["example"], field, value), headers=headers,
                                                          expect_errors=True)
            pointers = [error["pointer"] for error in response.json.get("errors", [])] \
                if response.content_type == "application/problem+json" else []
            if response.status_int != 400 or response.json.get("code") != "invalid_request" \
                    or _pointer(field) not in pointers:
                failures.append(f"{method.upper()} {path} {_pointer(field)} = {value!r}: {response.status_int} "
                                f"{response.text[:200]}")
    assert not failures, "\n".join(failures)
