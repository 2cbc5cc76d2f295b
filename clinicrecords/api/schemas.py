"""Base classes for request schemas, and turning marshmallow errors into JSON-pointer errors."""

import datetime
from decimal import Decimal
from typing import ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields


class RequestSchema(Schema):
    """A request body or query. Unknown fields raise (marshmallow's RAISE).

    - `EXAMPLE`: a body the sandbox clinic of any workspace accepts as-is (OpenAPI `example`, and a test
      posts every one of them).
    - `FORBIDDEN_FIELDS`: names that answer 400 `unknown_field` rather than `invalid_request`.
    - `REFUSE_UNDERSCORE_FIELDS`: underscore-prefixed names answer `unknown_field` too.
    - `OBJECT_RULES`: JSON Schema for the rules the schema's validators enforce across fields (at least one
      change, fields that exclude each other), built with `clinicrecords.api.object_rules`; the OpenAPI
      document states them on the object so that it refuses what the server refuses. A schema whose rules
      follow from its own fields computes them in `object_rules()`.
    """

    EXAMPLE: ClassVar[dict | None] = None
    FORBIDDEN_FIELDS: ClassVar[frozenset] = frozenset()
    REFUSE_UNDERSCORE_FIELDS: ClassVar[bool] = False
    OBJECT_RULES: ClassVar[dict] = {}

    class Meta:
        unknown = RAISE

    def object_rules(self):
        return self.OBJECT_RULES


class WholeNumber(fields.Integer):
    """A JSON integer in JSON Schema's sense, which the OpenAPI document's `"type": "integer"` states: any
    number with no fraction, so 1537 and 1537.0 are both 1537; 1537.5, "1537" and true are refused."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _validated(self, value):
        if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
            value = int(value)
        return super()._validated(value)


class JsonBoolean(fields.Boolean):
    """JSON `true` or `false` only, which the OpenAPI document's `"type": "boolean"` states: 0, 1, 0.0, "yes",
    "true" and "false" are refused (marshmallow's Boolean reads them as booleans). Every boolean of a request
    body is one (tests/api/test_booleans.py sends each non-boolean to each)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class Instant(fields.AwareDateTime):
    """A date-time with its offset whose UTC time the calendar holds (years 1 to 9999): the database stores and
    compares it in UTC, so `0001-01-01T00:00:00+14:00` (the year before 1 in UTC) or `9999-12-31T23:59:59-14:00`
    (the year 10000) is refused here rather than failing where it is used."""

    default_error_messages = {"out_of_range": "The instant falls outside the years 1 to 9999 in UTC."}

    def __init__(self, **kwargs):
        kwargs.setdefault("default_timezone", None)
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        instant = super()._deserialize(value, attr, data, **kwargs)
        if not instant_in_range(instant):
            raise self.make_error("out_of_range")
        return instant


def instant_in_range(instant):
    """Whether an aware datetime's UTC time lies in the years Python and the API hold (1 to 9999)."""
    try:
        instant.astimezone(datetime.UTC)
    except OverflowError:
        return False
    return True


def escape_pointer_token(token):
    return str(token).replace("~", "~0").replace("/", "~1")


def error_pointers(messages, prefix=""):
    """marshmallow's nested error dict → [{pointer, message}], pointers as RFC 6901 JSON pointers."""
    errors = []
    if isinstance(messages, (list, tuple)):
        return [{"pointer": prefix, "message": str(m)} for m in messages]
    for key, value in messages.items():
        pointer = prefix if key == "_schema" else f"{prefix}/{escape_pointer_token(key)}"
        if isinstance(value, dict):
            errors.extend(error_pointers(value, pointer))
        else:
            errors.extend({"pointer": pointer, "message": str(m)} for m in
                          (value if isinstance(value, (list, tuple)) else [value]))
    return errors


__all__ = ["Instant", "JsonBoolean", "RequestSchema", "ValidationError", "WholeNumber", "error_pointers",
           "escape_pointer_token", "instant_in_range"]
