from marshmallow import INCLUDE, fields

from clinicrecords.api.schemas import RequestSchema
from clinicrecords.exports.parameters import OUTPUT_FORMATS, offered_types
from clinicrecords.exports.search_parameters import (COUNT_PATTERN, CURSOR_PARAMETER, DEFAULT_COUNT, MAX_COUNT,
                                                    MAX_VALUE_CHARS, SEARCH_PARAMETERS, VALUE_PATTERNS)


# The values are documented (`enum`), not validated here: what else is sent reaches the export's own rules (400
# with an OperationOutcome, or ignored under `Prefer: handling=lenient`).
_LENIENT = (" Under `Prefer: respond-async, handling=lenient` a value not supported is ignored instead of refused "
            "(400), and the manifest's `error` file holds one OperationOutcome (severity `warning`) naming it.")


def _types(level):
    return fields.List(fields.String(metadata={"enum": list(offered_types(level))}), metadata={
        "description": "Comma-separated FHIR types (default: every type the key may read). A type the key "
                       "cannot read is refused (403 scope_missing), lenient or not; a type not offered at this "
                       "level is 400." + _LENIENT})


class KickoffQuery(RequestSchema):
    """The kick-off's parameters (Bulk Data IG v2). Any other parameter reaches the export's own rules: 400
    with an OperationOutcome, or ignored under `Prefer: handling=lenient` (one warning OperationOutcome per
    ignored parameter in the manifest's `error` file)."""

    class Meta:
        unknown = INCLUDE

    # Named as the IG names them (a query's names are the schema's field names).
    _type = _types("system")
    _since = fields.String(metadata={"format": "date-time", "description": "A FHIR instant: only resources "
                                     "changed after it (and a `deleted` section). Not an instant: 400." + _LENIENT})
    _outputFormat = fields.String(metadata={"enum": sorted(OUTPUT_FORMATS), "description": "application/fhir+ndjson "
                                            "(also application/ndjson, ndjson); any other format is 400." + _LENIENT})


_FORMAT = fields.String(metadata={"enum": ["json", "application/json", "application/fhir+json"],
                                  "description": "The answer's format, for clients that cannot send Accept: "
                                                 "JSON only (FHIR's XML is 406)."})


class ReadQuery(RequestSchema):
    """A FHIR read's one parameter (any other is 400)."""

    _format = _FORMAT


_KINDS = {
    "token": "A token: `code` or `system|code`; commas for any of several.",
    "reference": "A reference: an id, `Patient/{id}` or an absolute URL ending so; commas for any of several.",
    "string": "Matches the start of the name, ignoring case; `:exact` the whole name, `:contains` anywhere "
              "(send it as `name:exact=...`).",
    "date": "A FHIR date (`2026`, `2026-03`, `2026-03-04`) or instant, standing for its whole range, with a "
            "prefix `eq` (default), `gt`, `ge`, `lt` or `le`; repeat the parameter for a range "
            "(`ge2026-01-01&...=lt2026-02-01`).",
}


_COUNT_DESCRIPTION = f"Records per page: 0 to {MAX_COUNT} (default {DEFAULT_COUNT}; 0: the links alone)."
_CURSOR_DESCRIPTION = ("The next link's: opaque, encrypted and signed, valid for 24 hours. It carries the search, so "
                       "it is sent alone (with `_format` at most).")


def _pattern(pattern):
    # An empty value is allowed: R4 ignores a parameter without one.
    return {"pattern": f"^(?:{pattern})?$"}


def _value(kind):
    return {**_pattern(VALUE_PATTERNS[kind]), "maxLength": MAX_VALUE_CHARS}


def _search_query(fhir_type):
    """The query of a type's search, as the document shows it: its parameters (a parameter repeated is AND, as
    R4 reads it); what is not offered is refused (400) or, under `Prefer: handling=lenient`, ignored and named in
    the Bundle's OperationOutcome entry. Read by clinicrecords.exports.search_parameters, not here."""
    declared = {name: fields.List(fields.String(metadata=_value(parameter.kind)),
                                  metadata={"description": _KINDS[parameter.kind]})
                for name, parameter in SEARCH_PARAMETERS[fhir_type].items()}
    declared["_count"] = fields.String(metadata={**_pattern(COUNT_PATTERN), "description": _COUNT_DESCRIPTION})
    declared["_format"] = _FORMAT
    declared[CURSOR_PARAMETER] = fields.String(metadata={"description": _CURSOR_DESCRIPTION})
    meta = type("Meta", (), {"unknown": INCLUDE})
    return type(f"{fhir_type}SearchQuery", (RequestSchema,), {**declared, "Meta": meta, "REPEATS_UNKNOWN": True})


def search_form(fhir_type):
    """The form body of a type's POST _search, as JSON Schema: the same parameters, each once."""
    properties = {name: {"type": "string", **_value(parameter.kind), "description": _KINDS[parameter.kind]}
                  for name, parameter in SEARCH_PARAMETERS[fhir_type].items()}
    properties["_count"] = {"type": "string", **_pattern(COUNT_PATTERN), "description": _COUNT_DESCRIPTION}
    properties[CURSOR_PARAMETER] = {"type": "string", "description": _CURSOR_DESCRIPTION}
    return {"type": "object", "properties": properties, "additionalProperties": False,
            "description": "The search's parameters, as in the query of GET, each once."}


SEARCH_QUERIES = {fhir_type: _search_query(fhir_type) for fhir_type in SEARCH_PARAMETERS}


class PatientKickoffQuery(KickoffQuery):
    _type = _types("patient")


_FILE = {"type": "object", "required": ["type", "url"], "properties": {
    "type": {"type": "string"}, "url": {"type": "string", "format": "uri"}, "count": {"type": "integer"}}}

# The completion manifest (Bulk Data IG v2), as JSON Schema for the document.
MANIFEST_SCHEMA = {
    "type": "object", "required": ["transactionTime", "request", "requiresAccessToken", "output", "error"],
    "description": "The completion manifest. Each url is a file of this export, served to the same key only.",
    "properties": {
        "transactionTime": {"type": "string", "format": "date-time"},
        "request": {"type": "string"},
        "requiresAccessToken": {"const": True},
        "output": {"type": "array", "items": _FILE},
        "error": {"type": "array", "items": _FILE},
        "deleted": {"type": "array", "items": _FILE},
        "extension": {"type": "object"},
    },
}
FHIR_RESOURCE = {"$ref": "#/components/schemas/FhirResource"}
