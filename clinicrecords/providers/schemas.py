from marshmallow import fields, validate

from clinicrecords.api.schemas import RequestSchema
from clinicrecords.sandbox.interfaces import sandbox_id

ROLES = ("physician", "nurse_practitioner", "physician_assistant", "nurse", "pharmacist", "therapist",
         "dentist", "other")

SANDBOX_PROVIDER_IDS = [sandbox_id(f"provider:{n}") for n in range(1, 4)]


class LicenceOut(RequestSchema):
    jurisdiction = fields.String()
    number = fields.String()
    expires_on = fields.Date(allow_none=True)


class ProviderOut(RequestSchema):
    """The plain clinician shape (documentation): no contact details, no verified flag."""

    id = fields.UUID()
    name = fields.String()
    given_name = fields.String()
    family_name = fields.String()
    role = fields.String(validate=validate.OneOf(ROLES))
    specialties = fields.List(fields.String())
    npi = fields.String(allow_none=True)
    licences = fields.List(fields.Nested(LicenceOut))
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
