"""Reading a request body: JSON objects only, never half-read, never a 500 on bad input."""

import decimal
import json

from pyramid.request import Request

from clinicrecords.api.problems import Problem, invalid

JSON = "application/json"
FHIR_JSON = "application/fhir+json"


def _refuse_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def parse_json(raw):
    """Decimal for every non-integer number so money stays exact; NaN and Infinity are refused."""
    return json.loads(raw, parse_float=decimal.Decimal, parse_constant=_refuse_constant)


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


# pyramid_retry copies every body so a retry can read it again; webob puts a copy larger than its default
# 10 KiB limit in a temporary file that nobody closes. Bodies up to 10 MiB (the largest the spec allows)
# are copied in memory instead.
BODY_COPY_IN_MEMORY_LIMIT = 10 * 1024 * 1024


class ApiRequest(Request):
    request_body_tempfile_limit = BODY_COPY_IN_MEMORY_LIMIT


def includeme(config):
    config.set_request_factory(ApiRequest)
    config.add_request_method(_json_object, "json_object", reify=True)
