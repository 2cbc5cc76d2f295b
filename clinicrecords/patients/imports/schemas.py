from marshmallow import fields, validate

from clinicrecords.api.object_rules import all_of, when
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.patients.imports.formats import FORMATS, MAX_ROWS
from clinicrecords.sandbox.interfaces import sandbox_id

STATUSES = ("validating", "succeeded", "needs_review", "failed")
MAX_BYTES = 10 * 1024 * 1024

SANDBOX_IMPORT_ID = sandbox_id("patient-import:1")

_PATIENT_ENTRY = {"type": "object", "required": ["resource"], "properties": {"resource": {
    "type": "object", "required": ["resourceType"], "properties": {"resourceType": {"const": "Patient"}}}}}
# What `formats.read_rows` reads for each format, 1 to MAX_ROWS rows (ndjson's lines are counted once read).
_DATA_BY_FORMAT = {
    "json_array": {"type": "array", "minItems": 1, "maxItems": MAX_ROWS},
    "ndjson": {"type": "string", "pattern": "\\S"},
    "fhir_bundle": {"type": "object", "required": ["resourceType", "entry"], "properties": {
        "resourceType": {"const": "Bundle"},
        "entry": {"type": "array", "contains": _PATIENT_ENTRY, "minContains": 1, "maxContains": MAX_ROWS}}},
}


class PatientImportCreate(RequestSchema):
    """`data`: an array of create-patient objects (json_array), a string of one object per line (ndjson), or
    a FHIR R4 Bundle (fhir_bundle) whose Patient entries are imported and other entries ignored."""

    EXAMPLE = {"input_format": "json_array", "data": [
        {"given_name": "Noor", "family_name": "Haddad", "birth_date": "1979-08-21", "sex": "female",
         "external_id": "LEGACY-0001"},
        {"given_name": "Mateo", "family_name": "Lindqvist", "birth_date": "2001-02-14", "sex": "male",
         "email": "mateo.lindqvist@example.org", "external_id": "LEGACY-0002"},
    ]}

    OBJECT_RULES = all_of(*(when("input_format", name, {"properties": {"data": shape}}, f"data for {name}")
                            for name, shape in _DATA_BY_FORMAT.items()))

    input_format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    data = fields.Raw(required=True, metadata={"type": ["array", "string", "object"]})


class CountsOut(RequestSchema):
    created = fields.Integer()
    flagged_duplicate = fields.Integer()
    skipped_already_imported = fields.Integer()
    failed = fields.Integer()


class RowErrorOut(RequestSchema):
    row = fields.Integer()
    field = fields.String()
    reason = fields.String()


class PatientImportOut(RequestSchema):
    """The patient import job (documentation)."""

    id = fields.UUID()
    status = fields.String(validate=validate.OneOf(STATUSES))
    input_format = fields.String(validate=validate.OneOf(FORMATS))
    row_count = fields.Integer()
    last_processed_row = fields.Integer()
    counts = fields.Nested(CountsOut)
    row_errors = fields.List(fields.Nested(RowErrorOut))
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
    started_by = fields.String()
    valid_only_run_at = fields.DateTime(allow_none=True)
