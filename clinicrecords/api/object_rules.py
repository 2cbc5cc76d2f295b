"""JSON Schema for the rules that tie a body's fields together: at least one change, fields that exclude each
other, a field that must stand alone. A request schema states them in `OBJECT_RULES` and the OpenAPI document
carries them beside the fields (`api/openapi_builder.py`), so a generated client knows what the server
refuses. The schema's own validators still enforce every rule; these only say it.

    class ItemChange(RequestSchema):
        OBJECT_RULES = all_of(
            at_least_one_of(CHANGES, "Send at least one change."),
            alone_when("status", "entered_in_error", ("client_reference",), "A retraction comes alone."))
"""


def all_of(*rules):
    rules = [rule for rule in rules if rule]
    return rules[0] if len(rules) == 1 else {"allOf": rules}


def at_least_one_of(names, description):
    """At least one of these fields is sent."""
    return {"description": description, "anyOf": [{"required": [name]} for name in names]}


def alone_when(field, value, alongside, description):
    """When `field` is `value`, nothing else is sent but the fields named in `alongside`."""
    return {"description": description,
            "if": {"required": [field], "properties": {field: {"const": value}}},
            "then": {"propertyNames": {"enum": sorted({field, *alongside})}}}


def either(field, alone_with, otherwise_required, description):
    """When `field` is sent, nothing else is sent but the fields named in `alone_with`; when it is not,
    `otherwise_required` is."""
    return {"description": description,
            "if": {"required": [field]},
            "then": {"propertyNames": {"enum": sorted({field, *alone_with})}},
            "else": {"required": list(otherwise_required)}}


def when(field, value, then, description):
    """When `field` is `value`, the object also meets `then`."""
    return {"description": description,
            "if": {"required": [field], "properties": {field: {"const": value}}},
            "then": then}
