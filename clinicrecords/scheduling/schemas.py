from marshmallow import fields, validate

from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.schemas import Instant, RequestSchema
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.providers.interfaces import SANDBOX_PROVIDER_IDS
from clinicrecords.sandbox.interfaces import sandbox_id

STATUSES = ("booked", "cancelled")
SOURCES = ("api", "clinic")

# The sandbox's two clinicians with calendars (docs/scheduling.md): Monday to Friday 09:00-17:00 UTC.
SANDBOX_CALENDAR_PROVIDER_IDS = SANDBOX_PROVIDER_IDS[:2]
# Booked by the sandbox's own workspace (its test keys may cancel it), Monday 1 June 2099 10:00 UTC.
SANDBOX_APPOINTMENT_ID = sandbox_id("appointment:app-1")


class AppointmentCreate(RequestSchema):
    # No provider_id: "any clinician", so the example also works a second time (the other clinician).
    EXAMPLE = {"patient_id": str(SANDBOX_PATIENT_IDS[0]), "starts_at": "2099-06-01T09:00:00Z",
               "reason": "Annual check-up"}

    patient_id = fields.UUID(required=True)
    provider_id = fields.UUID(allow_none=True)
    specialty = fields.String(validate=validate.Length(1, 100), allow_none=True)
    starts_at = Instant(required=True, metadata={"description": (
        "the start of a 30-minute slot: on the hour or half hour of the clinic's local time, in the future")})
    referral_id = fields.UUID(allow_none=True)
    reason = fields.String(validate=validate.Length(1, 500), allow_none=True)


class AppointmentListQuery(UpdatedSinceListQuery):
    patient_id = fields.UUID()
    provider_id = fields.UUID()
    status = fields.String(validate=validate.OneOf(STATUSES))
    starts_from = Instant(data_key="from")
    starts_before = Instant(data_key="to")


class AppointmentOut(RequestSchema):
    """The plain appointment shape (documentation)."""

    id = fields.UUID()
    patient_id = fields.UUID()
    provider_id = fields.UUID()
    starts_at = fields.DateTime()
    ends_at = fields.DateTime()
    status = fields.String(validate=validate.OneOf(STATUSES))
    referral_id = fields.UUID(allow_none=True)
    reason = fields.String(allow_none=True)
    source = fields.String(validate=validate.OneOf(SOURCES))
    editable = fields.Boolean()
    cancelled_at = fields.DateTime(allow_none=True)
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
