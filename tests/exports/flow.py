"""Helpers for the Bulk Data flow tests: kick-offs, polling and downloads through the real stack."""

import json
from urllib.parse import urlsplit

from tests.common.clinical import headers

FHIR = "application/fhir+json"
KICKOFF = {"Accept": FHIR, "Prefer": "respond-async"}


def local(url):
    """The path and query of an absolute URL the API answered (WebTest takes paths)."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def kick_off(testapp, clinic_id, key, query="", level="", status=202, **extra):
    path = f"/v1/clinics/{clinic_id}/fhir/{level}$export{query}"
    return testapp.get(path, headers=headers(key, **{**KICKOFF, **extra}), status=status)


def status_url(response):
    return local(response.headers["Content-Location"])


def manifest_of(testapp, key, url):
    """The completed export's manifest (huey runs tasks at once in the tests' app)."""
    response = testapp.get(url, headers=headers(key), status=200)
    assert response.content_type == "application/json"
    return response


def ndjson(response):
    return [json.loads(line) for line in response.body.splitlines()]


def export(testapp, clinic_id, key, query="", level=""):
    """Kick off, read the manifest, download every output file: ({type: [resources]}, manifest)."""
    manifest = manifest_of(testapp, key, status_url(kick_off(testapp, clinic_id, key, query, level))).json
    found = {}
    for entry in manifest["output"]:
        found.setdefault(entry["type"], []).extend(ndjson(testapp.get(local(entry["url"]), headers=headers(key))))
    return found, manifest


def outcome_code(response):
    """The stable code an error under the FHIR base carries: an OperationOutcome whose first issue names the
    problem type (system) and its code, as problem+json's `type` and `code`."""
    assert response.content_type == FHIR
    assert response.json["resourceType"] == "OperationOutcome"
    coding = response.json["issue"][0]["details"]["coding"][0]
    assert coding["system"] == f"urn:clinicrecords:problem:{coding['code']}"
    return coding["code"]


def outcome_text(response):
    """Every issue's diagnostics of an OperationOutcome, in one string."""
    assert response.content_type == FHIR
    return " ".join(issue.get("diagnostics", "") for issue in response.json["issue"])
