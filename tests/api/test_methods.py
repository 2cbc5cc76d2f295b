"""A method a documented path does not answer is 405 with `Allow`, decided by the URL's shape: also where the
record the path names is absent or out of the key's reach (decision 0070). The key's own refusals still
come first, and a method the path does answer keeps its 404."""

import uuid

import pytest

ABSENT = str(uuid.uuid4())


def assert_problem(response, status, code):
    assert response.content_type == "application/problem+json"
    assert (response.json["status"], response.json["code"]) == (status, code)


def _clinic_key(world):
    clinic_id = world.clinic("Method Clinic")
    return clinic_id, {"Authorization": f"Bearer {world.key(clinic_id=clinic_id)}"}


@pytest.mark.parametrize("method,path,allow", [
    ("PUT", "/v1/clinics/{clinic_id}/allergies/{absent}", "GET, PATCH"),
    ("DELETE", "/v1/clinics/{clinic_id}/patients/{absent}", "GET, PATCH"),
    ("GET", "/v1/clinics/{clinic_id}/appointments/{absent}/cancel", "POST"),
    ("PATCH", "/v1/clinics/{absent}/patients", "GET, POST"),
    ("TRACE", "/v1/test_helpers/clinics/{clinic_id}/reset", "POST"),
])
def test_a_method_the_path_does_not_answer_is_405_whatever_the_record(testapp, world, method, path, allow):
    clinic_id, headers = _clinic_key(world)
    url = path.format(clinic_id=clinic_id, absent=ABSENT)
    response = testapp.request(url, method=method, headers=headers, status=405)
    assert_problem(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == allow


@pytest.mark.parametrize("method,path", [
    ("GET", "/v1/clinics/{clinic_id}/allergies/{absent}"),
    ("HEAD", "/v1/clinics/{clinic_id}/allergies/{absent}"),
    ("GET", "/v1/clinics/{absent}/patients"),
    ("POST", "/v1/test_helpers/clinics/{clinic_id}/reset"),
    ("TRACE", "/v1/clinics/{clinic_id}/nothing-here"),
    ("TRACE", "/v1/clinics/{clinic_id}/allergies/{absent}/nothing-here"),
])
def test_a_method_the_path_answers_keeps_its_404(testapp, world, method, path):
    clinic_id, headers = _clinic_key(world)
    response = testapp.request(path.format(clinic_id=clinic_id, absent=ABSENT), method=method, headers=headers,
                               status=404)
    if method != "HEAD":
        assert_problem(response, 404, "not_found")


def test_the_key_is_refused_before_the_method(testapp, world):
    clinic_id, _ = _clinic_key(world)
    response = testapp.request(f"/v1/clinics/{clinic_id}/allergies/{ABSENT}", method="PUT", status=401)
    assert_problem(response, 401, "invalid_key")


def test_a_key_that_may_not_look_there_still_gets_its_403(testapp, world):
    clinic_id = world.clinic("Narrow Clinic")
    key = world.key(clinic_id=clinic_id, scopes=["patients:read"])
    response = testapp.request(f"/v1/clinics/{clinic_id}/allergies/{ABSENT}", method="PUT",
                               headers={"Authorization": f"Bearer {key}"}, status=403)
    assert_problem(response, 403, "scope_missing")
