from marshmallow import fields, validate

from clinicrecords.api.schemas import RequestSchema
from clinicrecords.patients.imports.formats import FORMATS
from clinicrecords.sandbox.interfaces import sandbox_id

STATUSES = ("validating", "succeeded", "needs_review", "failed")
MAX_BYTES = 10 * 1024 * 1024

SANDBOX_IMPORT_ID = sandbox_id("patient-import:1")


class PatientImportCreate(RequestSchema):
    """`data`: an array of create-patient objects (json_array), a string of one object per line (ndjson), or
    a FHIR R4 Bundle (fhir_bundle) whose Patient entries are imported and other entries ignored."""

    EXAMPLE = {"input_format": "json_array", "data": [
        {"given_name": "Noor", "family_name": "Haddad", "birth_date": "1979-08-21", "sex": "female",
         "external_id": "LEGACY-0001"},
        {"given_name": "Mateo", "family_name": "Lindqvist", "birth_date": "2001-02-14", "sex": "male",
         "email": "mateo.lindqvist@example.org", "external_id": "LEGACY-0002"},
    ]}

    input_format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    data = fields.Raw(required=True)


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
