"""A request id per request: in every problem body, the X-Request-Id header and the log line."""

import secrets


def _request_id(request):
    return "req_" + secrets.token_hex(12)


def includeme(config):
    config.add_request_method(_request_id, "request_id", reify=True)
