"""Every failure under the clinic's FHIR base answers a FHIR OperationOutcome, as the Bulk Data IG asks (the
body of an error SHALL be one): the export's own refusals (ExportRefused, a failed job) and every problem the
shared machinery raises there (the key gate's 401, 403, 404, 405, 429, ...), which carries its stable code and
its request id inside (decision 0160)."""

import re

from clinicrecords.api.problem_codes import problem_type
from clinicrecords.api.render import json_bytes, json_response

FHIR_JSON = "application/fhir+json"

_FHIR_BASE = re.compile(r"^/v1/clinics/[^/]+/fhir(/|$)")

# R4's IssueType for each HTTP status a problem answers with (processing for any other).
_ISSUE_TYPES = {400: "invalid", 401: "login", 403: "forbidden", 404: "not-found", 405: "not-supported",
                406: "not-supported", 409: "conflict", 410: "deleted", 412: "conflict", 413: "too-costly",
                414: "too-long", 415: "not-supported", 422: "invalid", 429: "throttled", 431: "too-long",
                500: "exception", 501: "not-supported", 503: "transient"}


class ExportRefused(Exception):
    """A kick-off the IG's rules refuse: 400 with one OperationOutcome issue per reason."""

    def __init__(self, issues):
        super().__init__("; ".join(diagnostics for _, diagnostics in issues))
        self.issues = issues  # [(FHIR issue code, diagnostics)]


def operation_outcome(issues, severity="error"):
    return {"resourceType": "OperationOutcome",
            "issue": [{"severity": severity, "code": code, "diagnostics": text} for code, text in issues]}


def outcome_response(issues, status, severity="error"):
    return json_response(operation_outcome(issues, severity), status, FHIR_JSON)


def under_fhir_base(path):
    return _FHIR_BASE.match(path) is not None


def problem_outcome(problem, request_id):
    """The OperationOutcome telling `problem`: its code in `details.coding` (the problem type's URI as system,
    as problem+json's `type`), its title as `details.text`, its detail and the request id in `diagnostics`;
    each validation error an issue of its own, its pointer leading its diagnostics."""
    issue_type = _ISSUE_TYPES.get(problem.status, "processing")
    said = problem.detail or problem.title
    issues = [{
        "severity": "error", "code": issue_type,
        "details": {"coding": [{"system": problem_type(problem.code), "code": problem.code}], "text": problem.title},
        "diagnostics": f"{said} (request_id {request_id})",
    }]
    for error in problem.errors or ():
        pointer, message = error.get("pointer"), error.get("message", "")
        issues.append({"severity": "error", "code": issue_type,
                       "diagnostics": f"{pointer}: {message}" if pointer else message})
    return json_bytes({"resourceType": "OperationOutcome", "issue": issues}), FHIR_JSON
