"""The OpenAPI document and the server agree on the values and bodies a generated client (schemathesis) found
them disagreeing on: each is judged by the served document's schema (for its field, its whole body, or its
query parameter) and by the server, and both must accept it or both refuse it."""

import copy
import re
import uuid

import jsonschema_rs
import pytest

from tests.common.world import World

ADVICE = "/v1/clinics/{clinic_id}/insurance/payment-advices"
ALLERGIES = "/v1/clinics/{clinic_id}/allergies"
ALLERGY = "/v1/clinics/{clinic_id}/allergies/{allergy_id}"
CONDITION = "/v1/clinics/{clinic_id}/conditions/{condition_id}"
MEDICATIONS = "/v1/clinics/{clinic_id}/medication-statements"
MEDICATION = "/v1/clinics/{clinic_id}/medication-statements/{medication_statement_id}"
REFERRALS = "/v1/clinics/{clinic_id}/referrals"
REFERRAL = "/v1/clinics/{clinic_id}/referrals/{referral_id}"
SUBMISSION = "/v1/clinics/{clinic_id}/submissions/{submission_id}"
IMPORTS = "/v1/clinics/{clinic_id}/patient-imports"
CARE_PROVIDERS = "/v1/clinics/{clinic_id}/care-providers"
MOVEMENT = "/v1/clinics/{clinic_id}/inventory/items/{item_id}/movements"
BATCH = "/v1/clinics/{clinic_id}/inventory/stock-batches"
SEARCH = "/v1/listings/search"
NEAR = {"lat": 0.0, "lng": 10.0}


def _operation(document, path, method="post"):
    return document["paths"][path][method]


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


def _url(document, path, clinic_id, method="post"):
    values = {p["name"]: p.get("example") for p in _operation(document, path, method)["parameters"]
              if p["in"] == "path"}
    return path.format(**{**values, "clinic_id": clinic_id})


def _body_validator(document, path, method):
    """The operation's whole request body schema, its references resolved within the document."""
    schema = _operation(document, path, method)["requestBody"]["content"]["application/json"]["schema"]
    return jsonschema_rs.validator_for({**schema, "components": document["components"]})


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


@pytest.fixture(scope="module")
def own_clinic(app, module_transaction):
    """A real clinic seeded like a sandbox (the document's example ids name its records) and its own key, built
    once in the module's transaction: each test's requests roll back with its savepoint."""
    with module_transaction.joined():
        world = World(app.registry)
        clinic_id = world.clinic("Agreeing Clinic", seed=True)
        return clinic_id, world.key(clinic_id=clinic_id)


PATIENT = "b66f1840-e503-575e-854c-eff6b973e58a"  # the seed's second patient (the examples' own)
NDJSON_ROW = '{"given_name": "Ada", "family_name": "Lovelace", "birth_date": "1815-12-10"}\n'
BUNDLE_PATIENT = {"resource": {"resourceType": "Patient", "name": [{"given": ["Ada"], "family": "Lovelace"}],
                               "birthDate": "1815-12-10"}}


@pytest.mark.parametrize("method,path,body,accepted", [
    # A change request carries at least one change; client_reference and origin_assistant_name are none.
    ("patch", ALLERGY, {}, False),
    ("patch", ALLERGY, {"client_reference": "ref-1"}, False),
    ("patch", CONDITION, {}, False),
    ("patch", MEDICATION, {"origin_assistant_name": "Intake Assistant"}, False),
    ("patch", ALLERGY, {"note": "Tolerated a supervised challenge."}, True),
    # entered_in_error proposes a retraction, alone.
    ("patch", ALLERGY, {"clinical_status": "entered_in_error", "note": "Wrong patient"}, False),
    ("patch", REFERRAL, {"status": "entered_in_error", "priority": "urgent"}, False),
    ("patch", ALLERGY, {"clinical_status": "entered_in_error", "client_reference": "ref-2"}, True),
    ("patch", ALLERGY, {"category": ["food", "food"]}, False),
    # An allergy names its substance; a statement of no known allergies carries no allergy details.
    ("post", ALLERGIES, {"patient_id": PATIENT}, False),
    ("post", ALLERGIES, {"patient_id": PATIENT, "substance": {}}, False),
    ("post", ALLERGIES, {"patient_id": PATIENT, "no_known_allergies": True, "criticality": "high"}, False),
    ("post", ALLERGIES, {"patient_id": PATIENT, "no_known_allergies": True, "substance": {"text": "Latex"}}, False),
    ("post", ALLERGIES, {"patient_id": PATIENT, "no_known_allergies": True, "note": "Asked at intake."}, True),
    ("post", MEDICATIONS, {"patient_id": PATIENT, "medication": {}}, False),
    # A movement's quantity by its kind; a write-off's reason.
    ("post", MOVEMENT, {"kind": "write_off", "quantity": 0, "reason": "Broken"}, False),
    ("post", MOVEMENT, {"kind": "adjustment", "quantity": 0}, False),
    ("post", MOVEMENT, {"kind": "write_off", "quantity": 1}, False),
    ("post", MOVEMENT, {"kind": "write_off", "quantity": 1, "reason": ""}, False),
    ("post", MOVEMENT, {"kind": "adjustment", "quantity": -1}, True),
    # An import's data by its format, 1 to 100 rows.
    ("post", IMPORTS, {"input_format": "json_array", "data": 0}, False),
    ("post", IMPORTS, {"input_format": "json_array", "data": []}, False),
    ("post", IMPORTS, {"input_format": "ndjson", "data": []}, False),
    ("post", IMPORTS, {"input_format": "ndjson", "data": " \n "}, False),
    ("post", IMPORTS, {"input_format": "ndjson", "data": None}, False),
    ("post", IMPORTS, {"input_format": "fhir_bundle", "data": {"resourceType": "Bundle", "entry": []}}, False),
    ("post", IMPORTS, {"input_format": "ndjson", "data": NDJSON_ROW}, True),
    ("post", IMPORTS, {"input_format": "fhir_bundle", "data": {"resourceType": "Bundle",
                                                               "entry": [BUNDLE_PATIENT]}}, True),
    # Exactly one of q, gtin and regulator_number; their shapes.
    ("post", SEARCH, {"item": {}}, False),
    ("post", SEARCH, {"item": {"q": "amoxicillin", "gtin": "05000456012348"}}, False),
    ("post", SEARCH, {"item": {"gtin": "50004560"}}, True),
    ("post", SEARCH, {"item": {"gtin": "500045601"}}, False),
    ("post", SEARCH, {"item": {"regulator_number": "pl 00010/0001"}}, True),
    ("post", SEARCH, {"item": {"regulator_number": "PL#00010"}}, False),
    ("post", CARE_PROVIDERS, {"patient_id": PATIENT, "type": "pcp", "name": "Dr. Lena Osei", "npi": "12345"}, False),
    ("post", CARE_PROVIDERS, {"patient_id": PATIENT, "type": "pcp", "name": "Dr. Lena Osei", "npi": "1234567893"},
     True),
])
def test_the_document_and_the_server_judge_a_body_alike(testapp, own_clinic, method, path, body, accepted):
    document = testapp.get("/v1/openapi.json").json
    documented = _body_validator(document, path, method).is_valid(body)
    clinic_id, key = own_clinic
    headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
    send = testapp.patch_json if method == "patch" else testapp.post_json
    response = send(_url(document, path, clinic_id, method), body, headers=headers, expect_errors=True)
    if not accepted:
        assert response.status_int == 400, response.text
    assert (documented, response.status_int < 300) == (accepted, accepted), response.text


def _parameter_validator(document, path, name):
    parameter, = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == name]
    return jsonschema_rs.validator_for(parameter["schema"])


def test_a_cursor_the_server_did_not_issue_is_refused_by_both(testapp, own_clinic):
    """The document gives the cursor's shape; what has another shape is refused by both alike, and a cursor
    the server issued is accepted by both (a made-up one of that shape is the one disagreement left:
    tests/api/contract_accepted.py)."""
    document = testapp.get("/v1/openapi.json").json
    cursor = _parameter_validator(document, "/v1/clinics/{clinic_id}/patients", "starting_after")
    clinic_id, key = own_clinic
    url, headers = f"/v1/clinics/{clinic_id}/patients", {"Authorization": f"Bearer {key}"}
    for made_up in ("0", "a.b.c", "abc", "eyJz.x y"):
        response = testapp.get(url, {"starting_after": made_up}, headers=headers, status=400)
        assert response.json["errors"][0]["pointer"] == "/starting_after"
        assert not cursor.is_valid(made_up)
    issued = testapp.get(url, {"limit": 1}, headers=headers).json["next_cursor"]
    assert cursor.is_valid(issued)
    testapp.get(url, {"limit": 1, "starting_after": issued}, headers=headers, status=200)
    # A stray character in an issued cursor, which base64 decoding alone would skip, is refused by both too.
    stray = f"{issued[:4]}!{issued[4:]}"
    assert not cursor.is_valid(stray)
    testapp.get(url, {"limit": 1, "starting_after": stray}, headers=headers, status=400)


def test_a_withdrawn_submission_stays_readable_as_its_operation_says(testapp, own_clinic):
    document = testapp.get("/v1/openapi.json").json
    assert "GET on it still answers 200" in document["paths"][SUBMISSION]["delete"]["description"]
    clinic_id, key = own_clinic
    headers = {"Authorization": f"Bearer {key}"}
    send = document["paths"][REFERRALS]["post"]["requestBody"]["content"]["application/json"]["example"]
    sent = testapp.post_json(REFERRALS.format(clinic_id=clinic_id), send,
                             headers={**headers, "Idempotency-Key": str(uuid.uuid4())}, status=202)
    url = sent.headers["Location"]
    withdrawn = testapp.delete(url, headers=headers, status=200).json["data"]
    assert (withdrawn["review_status"], withdrawn["decision_reason"]) == ("rejected", "withdrawn")
    assert testapp.get(url, headers=headers, status=200).json["data"] == withdrawn


def test_the_url_limit_the_document_states_is_the_servers(testapp, own_clinic):
    introduction = testapp.get("/v1/openapi.json").json["info"]["description"]
    limit = int(re.search(r"\*\*URLs\*\* are at most (\d+) characters", introduction).group(1))
    clinic_id, key = own_clinic
    path = f"/v1/clinics/{clinic_id}/patients"
    headers = {"Authorization": f"Bearer {key}"}

    def query_of_length(length):
        return "x=" + "a" * (length - len(path) - 2)

    assert testapp.get(f"{path}?{query_of_length(limit)}", headers=headers, status=400).json["code"] == (
        "invalid_request")  # the unknown parameter, read: the URL itself was within the limit
    assert testapp.get(f"{path}?{query_of_length(limit + 1)}", headers=headers, status=414).json["code"] == (
        "uri_too_long")
