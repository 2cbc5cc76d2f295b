"""problem+json answers as exceptions: `code`, `status`, `detail`, `errors`, `request_id`. Under a clinic's FHIR
base a failure is an OperationOutcome carrying the same code (issue[0].details.coding) and is raised alike."""


class ApiError(Exception):
    def __init__(self, status, code, detail=None, errors=None, request_id=None, body=None):
        super().__init__(f"{status} {code}: {detail or ''} (request {request_id})".strip())
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors or []
        self.request_id = request_id
        self.body = body


class InvalidRequest(ApiError):
    """400"""


class Unauthorized(ApiError):
    """401"""


class Forbidden(ApiError):
    """403"""


class NotFound(ApiError):
    """404"""


class Conflict(ApiError):
    """409"""


class RateLimited(ApiError):
    """429"""


class ServerError(ApiError):
    """5xx"""


_BY_STATUS = {400: InvalidRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict,
              429: RateLimited}


def from_response(response):
    try:
        body = response.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    cls = _BY_STATUS.get(response.status_code) or (ServerError if response.status_code >= 500 else ApiError)
    if body.get("resourceType") == "OperationOutcome":
        return cls(response.status_code, _outcome_code(body), _outcome_text(body), None,
                   response.headers.get("X-Request-Id"), body)
    return cls(response.status_code, body.get("code", "http_error"), body.get("detail"), body.get("errors"),
               body.get("request_id") or response.headers.get("X-Request-Id"), body)


def _outcome_code(outcome):
    """The problem's code an OperationOutcome carries; its first issue's FHIR code when it carries none (the
    export's own refusals: `invalid`, `not-supported`)."""
    issues = outcome.get("issue") or [{}]
    for coding in (issues[0].get("details") or {}).get("coding") or ():
        if coding.get("code"):
            return coding["code"]
    return issues[0].get("code", "http_error")


def _outcome_text(outcome):
    return " ".join(issue.get("diagnostics", "") for issue in outcome.get("issue") or ()) or None
