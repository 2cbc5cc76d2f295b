"""The OpenAPI document and the server agree on the values a generated client (schemathesis) found them
disagreeing on: each value is judged by the served document's schema for its field and by the server, and
both must accept it or both refuse it."""

import copy
import uuid

import jsonschema_rs
import pytest

ADVICE = "/v1/clinics/{clinic_id}/insurance/payment-advices"
MOVEMENT = "/v1/clinics/{clinic_id}/inventory/items/{item_id}/movements"
BATCH = "/v1/clinics/{clinic_id}/inventory/stock-batches"
SEARCH = "/v1/listings/search"
NEAR = {"lat": 0.0, "lng": 10.0}


def _operation(document, path):
    return document["paths"][path]["post"]


def _resolve(document, schema):
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _field_schema(document, path, pointer):
    schema = _resolve(document, _operation(document, path)["requestBody"]["content"]["application/json"]["schema"])
    for token in pointer:
        schema = _resolve(document, schema["items"] if isinstance(token, int) else schema["properties"][token])
    return schema


def _body(document, path, pointer, value):
    body = copy.deepcopy(_operation(document, path)["requestBody"]["content"]["application/json"]["example"])
    if path == SEARCH:
        body["near"] = dict(NEAR)
    target = body
    for token in pointer[:-1]:
        target = target[token]
    target[pointer[-1]] = value
    return body


def _url(document, path, clinic_id):
    values = {p["name"]: p.get("example") for p in _operation(document, path)["parameters"] if p["in"] == "path"}
    return path.format(**{**values, "clinic_id": clinic_id})


@pytest.mark.parametrize("path,pointer,value,accepted", [
    (ADVICE, ("amount",), None, False),
    (ADVICE, ("amount",), 0, False),
    (ADVICE, ("amount",), 300.25, True),
    (ADVICE, ("allocations", 0, "amount"), None, False),
    (SEARCH, ("near", "radius_km"), 0, False),
    (SEARCH, ("near", "radius_km"), 0.5, True),
    (MOVEMENT, ("quantity",), 1537.0, True),
    (MOVEMENT, ("quantity",), 1537.5, False),
    (MOVEMENT, ("quantity",), "1537", False),
    (BATCH, ("items", 0, "quantity"), 118.0, True),
])
def test_the_document_and_the_server_judge_a_value_alike(world, testapp, path, pointer, value, accepted):
    document = testapp.get("/v1/openapi.json").json
    documented = jsonschema_rs.validator_for(_field_schema(document, path, pointer)).is_valid(value)
    workspace_id, sandbox_id = world.workspace()
    headers = {"Authorization": f"Bearer {world.key(workspace_id=workspace_id, mode='test')}",
               "Idempotency-Key": str(uuid.uuid4())}
    response = testapp.post_json(_url(document, path, sandbox_id), _body(document, path, pointer, value),
                                 headers=headers, expect_errors=True)
    if not accepted:
        assert response.status_int == 400, response.text
        assert response.json["errors"][0]["pointer"] == "/" + "/".join(map(str, pointer))
    assert (documented, response.status_int < 300) == (accepted, accepted), response.text
