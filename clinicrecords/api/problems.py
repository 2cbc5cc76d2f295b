"""Failures as RFC 9457 problem+json, raised as `Problem` anywhere and rendered in one place."""

import json

from pyramid.response import Response

from clinicrecords.api.problem_codes import CODES, problem_type
from clinicrecords.api.render import set_headers

PROBLEM_JSON = "application/problem+json"

# Where a failure is told in another format than problem+json: [(applies(path), render(problem, request_id))],
# `render` giving (body bytes, content type). The clinic's FHIR base tells its failures as OperationOutcomes.
PROBLEM_DIALECTS = "api.problem_dialects"


class Problem(Exception):
    """An answer that is a failure. `errors` is a list of {pointer, message} for validation failures."""

    def __init__(self, code, detail=None, *, errors=None, headers=None, status=None):
        super().__init__(detail or code)
        known = CODES[code]
        self.code = code
        self.status = status or known.status
        self.title = known.title
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}

    def body(self, request_id):
        body = {
            "type": problem_type(self.code),
            "title": self.title,
            "status": self.status,
            "code": self.code,
            "request_id": request_id,
        }
        if self.detail:
            body["detail"] = self.detail
        if self.errors:
            body["errors"] = self.errors
        return body


def invalid(errors, detail="The request failed validation."):
    return Problem("invalid_request", detail, errors=errors)


def problem_response(request, problem):
    # Rendered once per request: an idempotent request's refusal is stored from the same answer the error
    # view then sends. Kept on the request, as a Problem instance may be raised again in another request.
    state = request.state
    answer = state.problem_answer
    if answer is not None and answer[0] is problem:
        return answer[1]
    body, content_type = _rendered(request, problem)
    response = Response(status=problem.status, body=body, content_type=content_type, charset=None)
    set_headers(response, problem.headers)
    state.problem_answer = (problem, response)
    # The request log records the code without reading the body back.
    state.problem_code = problem.code
    return response


def _rendered(request, problem):
    # The WSGI path (bytes as latin-1): `path_info` raises on a path that is not UTF-8, a failure answered here.
    path = request.environ.get("PATH_INFO", "")
    for applies, render in request.registry.get(PROBLEM_DIALECTS, ()):
        if applies(path):
            return render(problem, request.request_id)
    return json.dumps(problem.body(request.request_id)).encode(), PROBLEM_JSON


def add_problem_dialect(config, applies, render):
    """Failures under the paths `applies(path)` accepts are rendered by `render(problem, request_id)` →
    (body bytes, content type) instead of problem+json; the code, status and headers stay the Problem's."""
    config.registry.setdefault(PROBLEM_DIALECTS, []).append((applies, render))
