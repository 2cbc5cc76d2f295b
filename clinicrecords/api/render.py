"""Rendering JSON answers: exact decimals (money is never a float), ISO dates, uuids as strings.

orjson writes the documents: on a page of 100 records it is about 20 times faster than the pure-Python
encoders, and its output for our documents (compact separators, RFC 3339 date-times, uuids as strings) is
the same bytes except that non-ASCII text is written as UTF-8 rather than as \\u escapes."""

import decimal

import orjson
from pyramid.renderers import JSON
from pyramid.response import Response

_OPTIONS = orjson.OPT_NON_STR_KEYS


def iso(value):
    """ISO 8601 for a date or date-time, None stays None."""
    return value.isoformat() if value is not None else None


def _default(value):
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise TypeError(f"{value} is not a JSON number")
        return orjson.Fragment(str(value))  # written as the exact number, never through a float
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def json_bytes(document):
    return orjson.dumps(document, default=_default, option=_OPTIONS)


def set_headers(response, headers):
    """`response.headers.update(headers)` in one pass over the answer's headers, not one per header set: each
    name replaces the answer's own (case-insensitive), the others are added."""
    if not headers:
        return
    names = {name.lower() for name in headers}
    headerlist = response.headerlist
    if any(name.lower() in names for name, _ in headerlist):
        headerlist[:] = [(name, value) for name, value in headerlist if name.lower() not in names]
    headerlist.extend(headers.items())


def json_response(document, status=200, content_type="application/json", headers=None, conditional=False):
    """`conditional`: answered 304 (or 412) by webob when the request's validators match the ETag or
    Last-Modified set on it."""
    response = Response(body=json_bytes(document), content_type=content_type, charset=None,
                        conditional_response=conditional)
    if status != 200:  # a new answer's own status: setting it again would format its reason phrase for nothing
        response.status_code = status
    set_headers(response, headers)
    return response


def json_renderer():
    def serializer(value, **kw):
        return json_bytes(value).decode()

    return JSON(serializer=serializer)
