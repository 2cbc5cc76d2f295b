"""Failures of the export itself (bad parameters, a failed job) answer a FHIR OperationOutcome, as the Bulk
Data IG asks; failures of the key, its reach and its limits stay problem+json like every route."""

from clinicrecords.api.render import json_response

FHIR_JSON = "application/fhir+json"


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
