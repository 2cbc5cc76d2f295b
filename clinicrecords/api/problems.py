"""Failures as RFC 9457 problem+json, raised as `Problem` anywhere and rendered in one place."""

import json

from pyramid.response import Response

from clinicrecords.api.problem_codes import CODES, problem_type

PROBLEM_JSON = "application/problem+json"


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
    response = Response(
        status=problem.status,
        body=json.dumps(problem.body(request.request_id)).encode(),
        content_type=PROBLEM_JSON,
        charset=None,
    )
    response.headers.update(problem.headers)
    state.problem_answer = (problem, response)
    # The request log records the code without reading the body back.
    state.problem_code = problem.code
    return response
