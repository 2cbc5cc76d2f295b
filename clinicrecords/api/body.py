"""Reading a request body: JSON objects only, never half-read, never a 500 on bad input."""

import decimal
import json

from clinicrecords.api.problems import Problem, invalid
from clinicrecords.api.schemas import escape_pointer_token

JSON = "application/json"
FHIR_JSON = "application/fhir+json"


def _refuse_constant(name):
    raise ValueError(f"{name} is not valid JSON")


# No field needs more: a longer number or an exponent like 1e999999999 would only cost CPU and memory later.
MAX_NUMBER_CHARS = 40
MAX_EXPONENT = 40


def _bounded_float(text):
    value = decimal.Decimal(text)
    if len(text) > MAX_NUMBER_CHARS or abs(value.adjusted()) > MAX_EXPONENT:
        raise ValueError("number out of range")
    return value


def _bounded_int(text):
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError("number out of range")
    return int(text)


class DuplicateKey(ValueError):
    """An object names the same key twice: `pointer` is the JSON Pointer to the (first) repeated member."""

    def __init__(self, pointer):
        super().__init__(f"the key at {pointer} appears more than once")
        self.pointer = pointer


class _Repeating(dict):
    """An object whose text repeats the key `repeated` (only ever built on the failure path)."""

    repeated = None


def _repeating(pairs):
    seen = set()
    members = _Repeating(pairs)
    members.repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
    return members


def _repeated_pointer(value, prefix=""):
    """The pointer to the first repeated key, in document order, or None."""
    if isinstance(value, _Repeating):
        return f"{prefix}/{escape_pointer_token(value.repeated)}"
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for token, child in children:
        found = _repeated_pointer(child, f"{prefix}/{escape_pointer_token(token)}")
        if found is not None:
            return found
    return None


def parse_json(raw):
    """Decimal for every non-integer number so money stays exact; NaN, Infinity and absurdly long or large
    numbers are refused (deep nesting ends in RecursionError, refused by the caller). An object that names a
    key twice raises DuplicateKey: the last one would silently win, and two readers may disagree on which."""
    repeating = []

    def members(pairs):
        found = dict(pairs)
        if len(found) != len(pairs):
            found = _repeating(pairs)
            repeating.append(found)
        return found

    value = json.loads(raw, parse_float=_bounded_float, parse_int=_bounded_int, parse_constant=_refuse_constant,
                       object_pairs_hook=members)
    if repeating:
        raise DuplicateKey(_repeated_pointer(value))
    return value


def _json_object(request):
    if request.content_type == FHIR_JSON:
        raise Problem(
            "unsupported_media_type",
            "FHIR bodies are not accepted for writes: send the plain JSON shape with Content-Type "
            "application/json.",
        )
    if request.content_type != JSON:
        raise Problem("unsupported_media_type", "Send the body as application/json.")
    try:
        value = parse_json(request.body)
    except DuplicateKey as repeated:
        raise invalid([{"pointer": repeated.pointer, "message": "This key appears more than once in its "
                        "object."}], "The body names a key twice in one object.") from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise invalid([{"pointer": "", "message": "The body is not valid JSON."}],
                      "The body is not valid JSON.") from None
    if not isinstance(value, dict):
        raise invalid([{"pointer": "", "message": "The body must be a JSON object."}])
    return value


def includeme(config):
    config.add_request_method(_json_object, "json_object", reify=True)
