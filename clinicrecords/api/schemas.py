"""Base classes for request schemas, and turning marshmallow errors into JSON-pointer errors."""

from typing import ClassVar

from marshmallow import RAISE, Schema, ValidationError


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


__all__ = ["RequestSchema", "ValidationError", "error_pointers", "escape_pointer_token"]
