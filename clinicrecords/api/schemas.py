"""Base classes for request schemas, and turning marshmallow errors into JSON-pointer errors."""

from decimal import Decimal
from typing import ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields


class RequestSchema(Schema):
    """A request body or query. Unknown fields raise (marshmallow's RAISE).

    - `EXAMPLE`: a body the sandbox clinic of any workspace accepts as-is (OpenAPI `example`, and a test
      posts every one of them).
    - `FORBIDDEN_FIELDS`: names that answer 400 `unknown_field` rather than `invalid_request`.
    - `REFUSE_UNDERSCORE_FIELDS`: underscore-prefixed names answer `unknown_field` too.
    """

    EXAMPLE: ClassVar[dict | None] = None
    FORBIDDEN_FIELDS: ClassVar[frozenset] = frozenset()
    REFUSE_UNDERSCORE_FIELDS: ClassVar[bool] = False

    class Meta:
        unknown = RAISE


class WholeNumber(fields.Integer):
    """A JSON integer in JSON Schema's sense, which the OpenAPI document's `"type": "integer"` states: any
    number with no fraction, so 1537 and 1537.0 are both 1537; 1537.5, "1537" and true are refused."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _validated(self, value):
        if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
            value = int(value)
        return super()._validated(value)


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


__all__ = ["RequestSchema", "ValidationError", "WholeNumber", "error_pointers", "escape_pointer_token"]
