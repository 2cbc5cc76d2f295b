from marshmallow import INCLUDE, fields

from clinicrecords.api.schemas import RequestSchema
from clinicrecords.exports.parameters import OUTPUT_FORMATS, offered_types


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


class ReadQuery(RequestSchema):
    """A FHIR read's one parameter (any other is 400)."""

    _format = fields.String(metadata={"enum": ["json", "application/json", "application/fhir+json"],
                                      "description": "The answer's format, for clients that cannot send Accept: "
                                                     "JSON only (FHIR's XML is 406)."})


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
