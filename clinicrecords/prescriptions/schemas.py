from marshmallow import fields, validate

from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.sandbox.interfaces import sandbox_id

STATUSES = ("active", "on_hold", "completed", "cancelled", "stopped")
SOURCES = ("eprescribe", "clinic")

SANDBOX_PRESCRIPTION_IDS = [sandbox_id(f"prescription:{n}") for n in range(1, 4)]


class PrescriptionListQuery(UpdatedSinceListQuery):
    patient_id = fields.UUID()
    status = fields.String(validate=validate.OneOf(STATUSES))


class PrescriptionOut(RequestSchema):
    """The plain prescription shape (documentation)."""

    id = fields.UUID()
    patient_id = fields.UUID()
    drug = fields.String()
    dose = fields.String()
    frequency = fields.String()
    status = fields.String(validate=validate.OneOf(STATUSES))
    source = fields.String(validate=validate.OneOf(SOURCES))
    written_on = fields.Date()
    start_date = fields.Date(allow_none=True)
    end_date = fields.Date(allow_none=True)
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
