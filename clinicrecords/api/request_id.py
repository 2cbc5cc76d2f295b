"""A request id per request: in every problem body, the X-Request-Id header and the log line."""

import secrets


def new_request_id():
    return "req_" + secrets.token_hex(12)


def _request_id(request):
    return new_request_id()


def includeme(config):
    config.add_request_method(_request_id, "request_id", reify=True)
