"""Reading a request body: JSON objects only, never half-read, never a 500 on bad input."""

import decimal
import json

from clinicrecords.api.problems import Problem, invalid

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


def parse_json(raw):
    """Decimal for every non-integer number so money stays exact; NaN, Infinity and absurdly long or large
    numbers are refused (deep nesting ends in RecursionError, refused by the caller)."""
    return json.loads(raw, parse_float=_bounded_float, parse_int=_bounded_int,
                      parse_constant=_refuse_constant)


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
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise invalid([{"pointer": "", "message": "The body is not valid JSON."}], "The body is not valid JSON.")
    if not isinstance(value, dict):
        raise invalid([{"pointer": "", "message": "The body must be a JSON object."}])
    return value


def includeme(config):
    config.add_request_method(_json_object, "json_object", reify=True)
