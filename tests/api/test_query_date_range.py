"""A date or date-time in a list's query that the calendar cannot hold is a 400, never a 500: an instant whose
UTC time falls before year 1 or after year 9999 (`0001-01-01T00:00:00+14:00`, `9999-12-31T23:59:59-14:00`),
and a date a list would step out of the calendar from (the dispensing flags' window around `to`).

Generic over the OpenAPI document built from the registered routes: every GET's date and date-time query
parameters, at both ends."""

from urllib.parse import urlencode

from clinicrecords.api.openapi import document
from tests.api.test_examples import _url

OUT_OF_RANGE_INSTANTS = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"]
EDGE_INSTANTS = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00-14:00",
                 "9999-12-31T23:59:59+14:00"]
EDGE_DATES = ["0001-01-01", "0001-01-02", "9999-12-30", "9999-12-31"]


def _dated_parameters(registry):
    for path, methods in document(registry)["paths"].items():
        operation = methods.get("get")
        if operation is None:
            continue
        for parameter in operation["parameters"]:
            kind = parameter.get("schema", {}).get("format")
            if parameter["in"] == "query" and kind in ("date", "date-time"):
                yield path, operation, parameter["name"], kind


# A Bulk Data kick-off is asked with these headers, and refuses with an OperationOutcome (docs/bulk-export.md).
KICKOFF = {"Accept": "application/fhir+json", "Prefer": "respond-async"}


def _get(testapp, key, url, name, value):
    headers = {"Authorization": f"Bearer {key}", **(KICKOFF if url.endswith("$export") else {})}
    return testapp.get(f"{url}?{urlencode({name: value})}", headers=headers, expect_errors=True)


def _refused(response):
    if response.content_type == "application/fhir+json":
        return response.status_int == 400 and response.json["resourceType"] == "OperationOutcome"
    return response.status_int == 400 and response.json.get("code") == "invalid_request"


def test_the_document_has_dated_query_parameters(registry):
    named = {(path, name) for path, _, name, _ in _dated_parameters(registry)}
    assert ("/v1/clinics/{clinic_id}/dispensing/flags", "to") in named
    assert ("/v1/clinics/{clinic_id}/patients", "updated_since") in named


def test_no_date_or_instant_at_the_calendars_ends_is_a_500(world, testapp, registry):
    workspace_id, sandbox_clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    failures = []
    for path, operation, name, kind in _dated_parameters(registry):
        url = _url(path, operation, sandbox_clinic_id)
        if kind == "date-time":
            for value in OUT_OF_RANGE_INSTANTS:
                response = _get(testapp, key, url, name, value)
                if not _refused(response) or name not in response.text:
                    failures.append(f"GET {path}?{name}={value}: {response.status_int} {response.text[:200]}")
        for value in EDGE_INSTANTS if kind == "date-time" else EDGE_DATES:
            response = _get(testapp, key, url, name, value)
            if response.status_int >= 500:
                failures.append(f"GET {path}?{name}={value}: {response.status_int} {response.text[:200]}")
    assert not failures, "\n".join(failures)


def test_dispensing_flags_to_the_first_day_of_the_calendar_is_400(world, testapp):
    workspace_id, sandbox_clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    for query in ("to=0001-01-01", "to=9999-12-31", "from=9999-12-31&to=9999-12-31"):
        response = testapp.get(f"/v1/clinics/{sandbox_clinic_id}/dispensing/flags?{query}",
                               headers={"Authorization": f"Bearer {key}"}, status=400)
        assert response.json["code"] == "invalid_request"
        assert response.json["errors"][0]["pointer"] in ("/from", "/to")
