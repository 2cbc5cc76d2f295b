"""Parsing every body and query with marshmallow, in one place: the `body_schema=` and `query_schema=`
view options. The parsed values are `request.validated` (body) and `request.query` (query).

A view without `query_schema` accepts no query parameters at all: an unknown parameter is always a 400
naming it. Validation runs after the permission check, so a caller without the scope learns nothing.
"""

from marshmallow import Schema, ValidationError, fields

from clinicrecords.api.problems import Problem, invalid
from clinicrecords.api.schemas import error_pointers, escape_pointer_token


class NoQuery(Schema):
    """The query of a route that takes no parameters."""


_instances = {}


def _instance(schema):
    if isinstance(schema, Schema):
        return schema
    if schema not in _instances:
        _instances[schema] = schema()
    return _instances[schema]


def _text_errors(value, pointer=""):
    """Strings PostgreSQL cannot store (NUL) or that are not Unicode text (lone surrogates from JSON escapes)
    are refused here, with pointers, so no schema or service meets them."""
    if isinstance(value, str):
        if "\x00" in value:
            return [{"pointer": pointer, "message": "Text may not contain NUL characters."}]
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return [{"pointer": pointer, "message": "Text must be valid Unicode (no lone surrogates)."}]
        return []
    errors = []
    if isinstance(value, dict):
        for key, item in value.items():
            child = f"{pointer}/{escape_pointer_token(key)}"
            errors += [dict(error, pointer=child) for error in _text_errors(key, child)]
            errors += _text_errors(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            errors += _text_errors(item, f"{pointer}/{index}")
    return errors


def _query_dict(request, schema):
    values, errors = {}, []
    for name in dict.fromkeys(request.GET.keys()):  # a MultiDict lists a repeated name repeatedly
        found = request.GET.getall(name)
        field = schema.fields.get(name)
        if isinstance(field, fields.List) or (field is None and getattr(schema, "REPEATS_UNKNOWN", False)):
            values[name] = found
        elif len(found) > 1:
            errors.append({"pointer": f"/{name}", "location": "query", "message": "Give this parameter once."})
        else:
            values[name] = found[0]
    errors += [dict(error, location="query") for error in _text_errors(values)]
    if errors:
        raise invalid(errors, "The query is not valid.")
    return values


def parse_query(request, schema_class):
    if schema_class is None and not request.environ.get("QUERY_STRING"):
        return {}  # what NoQuery loads from no parameters, without building the request's MultiDict
    schema = _instance(schema_class or NoQuery)
    try:
        return schema.load(_query_dict(request, schema))
    except ValidationError as exc:
        errors = [dict(error, location="query") for error in error_pointers(exc.messages)]
        raise invalid(errors, "The query is not valid.") from None


def _refuse_forbidden_fields(schema, body):
    names = [name for name in body if name in schema.FORBIDDEN_FIELDS
             or (getattr(schema, "REFUSE_UNDERSCORE_FIELDS", False) and name.startswith("_"))]
    if names:
        raise Problem("unknown_field", f"These fields are not accepted here: {', '.join(sorted(names))}.",
                      errors=[{"pointer": f"/{name}", "message": "This field is not accepted."} for name in names])


def parse_body(request, schema_class):
    schema = _instance(schema_class)
    body = request.json_object
    if "resourceType" in body:
        raise invalid([{"pointer": "/resourceType", "message": "FHIR resources are read-only; send the plain "
                        "JSON shape."}], "FHIR bodies are not accepted for writes.")
    _refuse_forbidden_fields(schema, body)
    errors = _text_errors(body)
    if errors:
        raise invalid(errors)
    return load_body(schema, body)


def load_body(schema, body):
    """`body` (a parsed JSON object) read by `schema` (a class or instance), or 400 invalid_request with a JSON
    pointer per problem: what a body schema answers, for a service that assembles a body itself (a change
    merged into what was sent)."""
    try:
        return _instance(schema).load(body)
    except ValidationError as exc:
        raise invalid(error_pointers(exc.messages)) from None


def validation_deriver(view, info):
    if info.exception_only or info.options.get("route_name"):
        return view  # views on a route are another surface's (the portal's forms validate themselves)
    body_schema = info.options.get("body_schema")
    query_schema = info.options.get("query_schema")

    def validated_view(context, request):
        state = request.state
        state.query = parse_query(request, query_schema)
        if body_schema is not None:
            state.body = parse_body(request, body_schema)
        return view(context, request)

    return validated_view


validation_deriver.options = ("body_schema", "query_schema")


def includeme(config):
    config.add_view_deriver(validation_deriver, name="validation", under="idempotency")
