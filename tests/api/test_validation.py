"""Strict validation, one test per rule: every bad body or query is a 400 with JSON pointers, never a 500."""

import uuid

import pytest
from marshmallow import fields

from clinicrecords.api.problems import Problem
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.api.validation import parse_body
from clinicrecords.patients.schemas import PatientCreate
from clinicrecords.request_class import request_factory


@pytest.fixture
def post(testapp, connected):
    url = f"/v1/clinics/{connected.clinic_id}/patients"

    def post(body, status=400, **kwargs):
        headers = {**connected.headers, "Idempotency-Key": str(uuid.uuid4())}
        if isinstance(body, bytes):
            return testapp.post(url, body, headers=headers, content_type="application/json", status=status)
        return testapp.post_json(url, body, headers=headers, status=status, **kwargs)

    return post


def _only_error(response, code="invalid_request"):
    assert response.content_type == "application/problem+json"
    assert response.json["code"] == code
    [error] = response.json["errors"]
    return error


@pytest.mark.parametrize("body", [b"[]", b'["given_name"]', b'"text"', b"42", b"null", b"true"])
def test_json_that_is_not_an_object(post, body):
    assert _only_error(post(body))["pointer"] == ""


@pytest.mark.parametrize("body", [b"{", b'{"a": NaN}', b"\xff", b""])
def test_a_body_that_is_not_json(post, body):
    assert _only_error(post(body))["pointer"] == ""


def test_a_string_over_its_bound(post):
    error = _only_error(post(dict(PatientCreate.EXAMPLE, given_name="x" * 101)))
    assert error["pointer"] == "/given_name" and "100" in error["message"]


def test_a_number_where_a_string_goes(post):
    assert _only_error(post(dict(PatientCreate.EXAMPLE, family_name=12)))["pointer"] == "/family_name"


@pytest.mark.parametrize("value", ["2023-02-30", "12/04/1988", "1988-04-12T10:00:00+00:00x", 19880412, ""])
def test_a_date_that_is_not_a_date(post, value):
    assert _only_error(post(dict(PatientCreate.EXAMPLE, birth_date=value)))["pointer"] == "/birth_date"


def test_an_unknown_field_is_named(post):
    error = _only_error(post(dict(PatientCreate.EXAMPLE, colour="red")))
    assert error == {"pointer": "/colour", "message": error["message"]}


def test_pointers_reach_into_nested_objects_and_arrays(post):
    body = dict(PatientCreate.EXAMPLE, address={"line": ["ok", "y" * 201], "country": "US"})
    assert _only_error(post(body))["pointer"] == "/address/line/1"


def test_pointer_tokens_are_escaped(post):
    assert _only_error(post(dict(PatientCreate.EXAMPLE, **{"a/b~c": 1})))["pointer"] == "/a~1b~0c"


@pytest.mark.parametrize("body,pointer", [
    (b'{"given_name": "Maya", "family_name": "Okafor", "birth_date": "1988-04-12", "given_name": "Eve"}',
     "/given_name"),
    (b'{"given_name": "Maya", "family_name": "Okafor", "birth_date": "1988-04-12", '
     b'"address": {"line": ["1 Road"], "city": "A", "city": "B"}}', "/address/city"),
    (b'{"given_name": "Maya", "family_name": "Okafor", "birth_date": "1988-04-12", '
     b'"x": [{"ok": 1}, {"a/b": {"n": 1, "n": 2}}]}', "/x/1/a~1b/n"),
])
def test_a_key_given_twice_in_one_object_is_named(post, body, pointer):
    """The last one would silently win, and another reader of the same text may take the first."""
    error = _only_error(post(body))
    assert error["pointer"] == pointer
    assert "more than once" in error["message"]


def test_the_same_key_in_two_objects_is_fine(post):
    post(b'{"given_name": "Maya", "family_name": "Okafor", "birth_date": "1988-04-12", '
         b'"address": {"city": "Springfield", "country": "US"}, "external_id": "city"}', status=201)


@pytest.mark.parametrize("text", ["nul\x00here", "\ud800"])
def test_text_postgresql_cannot_store(post, text):
    body = dict(PatientCreate.EXAMPLE, address={"line": [text]})
    assert _only_error(post(body))["pointer"] == "/address/line/0"


def test_a_missing_field(post):
    body = dict(PatientCreate.EXAMPLE)
    del body["family_name"]
    assert _only_error(post(body))["pointer"] == "/family_name"


def test_several_problems_are_all_reported(post):
    response = post({"given_name": "", "family_name": 1, "birth_date": "no"})
    assert {e["pointer"] for e in response.json["errors"]} == {"/given_name", "/family_name", "/birth_date"}


def test_query_parameter_given_twice(testapp, connected):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?limit=2&limit=3",
                           headers=connected.headers, status=400)
    assert _only_error(response) == {"pointer": "/limit", "location": "query", "message": "Give this parameter once."}


@pytest.mark.parametrize("query", ["family_name=%00", "family_name=" + "x" * 101])
def test_bad_query_values_name_the_parameter(testapp, connected, query):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?{query}", headers=connected.headers,
                           status=400)
    assert _only_error(response)["pointer"] == "/family_name"


def test_a_query_string_that_is_not_utf8(testapp, connected):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?family_name=%ff", headers=connected.headers,
                           status=400)
    assert _only_error(response)["location"] == "query"


def test_a_path_that_is_not_utf8_is_404(testapp, connected):
    response = testapp.get(f"/v1/clinics/{connected.clinic_id}/patients/%ff%fe", headers=connected.headers,
                           status=404)
    assert response.json["code"] == "not_found" and response.headers["X-Request-Id"]


def test_a_route_without_query_parameters_refuses_any(testapp, connected):
    response = testapp.get("/v1/me?verbose=1", headers=connected.headers, status=400)
    assert _only_error(response) == {"pointer": "/verbose", "location": "query", "message": "Unknown field."}


def test_validation_runs_after_the_permission_check(world, testapp):
    narrow = world.connected(scopes={"patients:read"})
    response = testapp.post(f"/v1/clinics/{narrow.clinic_id}/patients", b"[not json",
                            headers={**narrow.headers, "Idempotency-Key": "k"}, content_type="application/json",
                            status=403)
    assert response.json["code"] == "scope_missing"


class BlankNote(RequestSchema):
    """A body with forbidden fields, as the spec's blank notes have (no route of that kind exists yet)."""

    FORBIDDEN_FIELDS = frozenset({"diagnoses", "treatment_plans"})
    REFUSE_UNDERSCORE_FIELDS = True
    text = fields.String()


def _parse(registry, body):
    request = request_factory(registry).blank("/v1/x", method="POST", body=body, content_type="application/json")
    request.registry = registry
    return parse_body(request, BlankNote)


def test_forbidden_and_underscore_fields_are_unknown_field(registry):
    with pytest.raises(Problem) as info:
        _parse(registry, b'{"text": "x", "diagnoses": [], "_internal": 1, "colour": 2}')
    problem = info.value
    assert (problem.status, problem.code) == (400, "unknown_field")
    assert {e["pointer"] for e in problem.errors} == {"/diagnoses", "/_internal"}
    assert _parse(registry, b'{"text": "fine"}') == {"text": "fine"}
    with pytest.raises(Problem) as info:
        _parse(registry, b'{"colour": 2}')
    assert info.value.code == "invalid_request"
