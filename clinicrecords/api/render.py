"""Rendering JSON answers: exact decimals (money is never a float), ISO dates, uuids as strings."""

import datetime
import uuid

import simplejson
from pyramid.renderers import JSON
from pyramid.response import Response


def iso(value):
    """ISO 8601 for a date or date-time, None stays None."""
    return value.isoformat() if value is not None else None


def _default(value):
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def json_bytes(document):
    return simplejson.dumps(document, use_decimal=True, default=_default, separators=(",", ":")).encode()


def json_response(document, status=200, content_type="application/json", headers=None):
    response = Response(status=status, body=json_bytes(document), content_type=content_type, charset=None)
    if headers:
        response.headers.update(headers)
    return response


def json_renderer():
    def serializer(value, **kw):
        return simplejson.dumps(value, use_decimal=True, default=_default, separators=(",", ":"))

    return JSON(serializer=serializer)
