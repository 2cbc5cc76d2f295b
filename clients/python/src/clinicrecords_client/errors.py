"""problem+json answers as exceptions: `code`, `status`, `detail`, `errors`, `request_id`."""


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
    return cls(response.status_code, body.get("code", "http_error"), body.get("detail"), body.get("errors"),
               body.get("request_id") or response.headers.get("X-Request-Id"), body)
